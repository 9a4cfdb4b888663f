import { z } from "zod";
import type { VersionNumber } from "../protocol/types";
import { SUPPORTED_VERSIONS } from "../protocol/vocabulary";
import { isDateTime } from "../protocol/datetime";

/**
 * Something built for each version once, when the module loads: schemas above all, whose construction costs
 * far more than a parse (a Token PUT that built its TokenType schema per request lost a fifth of its throughput).
 */
export const perVersion = <T>(build: (v: VersionNumber) => T): Record<VersionNumber, T> =>
  Object.fromEntries(SUPPORTED_VERSIONS.map((v) => [v, build(v)])) as Record<VersionNumber, T>;

/**
 * Field rules shared by every module (Part A types, OCPI 2.2.1 Types), per
 * version. Objects are loose: 2.3.0 forbids rejecting unknown properties,
 * and older partners send extras too; they are kept and passed through.
 */
export const dateTime = () => z.string().refine(isDateTime, { message: "must be an OCPI DateTime (UTC, e.g. 2024-01-31T12:00:00Z)" });

/**
 * CiString (OCPI 2.2.1 Types): "case-insensitive, printable ASCII";
 * "non-printables (CR, LF, TAB) not allowed". Compare and key them with
 * `ciKey`/`sameCiString`, never with `===`.
 */
export const ciString = (max: number) =>
  z.string().max(max, { message: `must be at most ${max} characters` }).regex(/^[\x20-\x7e]*$/, { message: "must be printable ASCII" });

/** The one spelling of a CiString under which it is stored and looked up; the object keeps the case it was written with. */
export const ciKey = (value: string): string => value.toUpperCase();

export const sameCiString = (a: string, b: string): boolean => ciKey(a) === ciKey(b);

/**
 * Control characters (C0 with TAB, CR and LF, DEL, C1), line and paragraph
 * separators, and lone surrogates (not UTF-8 at all).
 */
const NON_PRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * OCPI `string` (OCPI 2.2.1 Types): "case-sensitive, printable UTF-8, no
 * control chars" in 2.2+. 2.1.1 says printable ASCII, but its partners send
 * UTF-8 names and addresses: the 2.2+ rule holds for every version. Every
 * free-text field of every module is built here, so the rule lives once.
 */
export const text = (max?: number) => {
  const string = max === undefined ? z.string() : z.string().max(max, { message: `must be at most ${max} characters` });
  return string.refine((v) => !NON_PRINTABLE.test(v), { message: "must be printable (no control characters such as tab, CR or LF)" });
};

/** HH:MM, 24 h, local time (regular hours of a Location, tariff restrictions) */
export const timeOfDay = () =>
  z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, { message: "must be a time of day HH:MM (00:00-23:59)" });

export const countryCode = () => z.string().regex(/^[A-Za-z]{2}$/, { message: "must be exactly 2 letters (ISO 3166-1 alpha-2)" });
export const partyId = () => z.string().regex(/^[A-Za-z0-9]{3}$/, { message: "must be exactly 3 alphanumeric characters" });
export const country3 = () => z.string().regex(/^[A-Za-z]{3}$/, { message: "must be exactly 3 letters (ISO 3166-1 alpha-3)" });
export const currency = () => z.string().regex(/^[A-Z]{3}$/, { message: "must be a 3-letter ISO 4217 currency code" });
export const language = () => z.string().regex(/^[a-z]{2}$/i, { message: "must be a 2-letter ISO 639-1 language code" });
/** URL: a string(255) (printable, like every string) that is http(s) */
export const url = () => text(255).refine((v) => /^https?:\/\/\S+$/i.test(v), { message: "must be an http(s) URL" });

/** A closed enumeration, or in 2.3.0 an OpenEnum (known values plus custom ones). */
export const enumeration = <T extends string>(values: readonly [T, ...T[]], open = false) =>
  open ? text(255).min(1, { message: "must not be empty" }) : z.enum(values, { message: `must be one of ${values.join(", ")}` });

export const nonEmptyArray = <T extends z.ZodType>(item: T) => z.array(item).min(1, { message: "must contain at least one element" });

export const displayText = () => z.looseObject({ language: language(), text: text(512) });

export const geoLocation = (version: VersionNumber) =>
  version === "2.1.1"
    ? z.looseObject({
        latitude: z.string().regex(/^-?[0-9]{1,2}\.[0-9]{5,7}$/, { message: "must be decimal degrees with 5-7 decimals" }),
        longitude: z.string().regex(/^-?[0-9]{1,3}\.[0-9]{5,7}$/, { message: "must be decimal degrees with 5-7 decimals" }),
      })
    : z.looseObject({
        latitude: z.string().max(10).regex(/^-?[0-9]{1,2}\.[0-9]{5,7}$/, { message: "must be decimal degrees with 5-7 decimals" }),
        longitude: z.string().max(11).regex(/^-?[0-9]{1,3}\.[0-9]{5,7}$/, { message: "must be decimal degrees with 5-7 decimals" }),
      });

export const IMAGE_CATEGORIES = ["CHARGER", "ENTRANCE", "LOCATION", "NETWORK", "OPERATOR", "OTHER", "OWNER"] as const;

export const image = (version: VersionNumber) =>
  z.looseObject({
    url: url(),
    thumbnail: url().optional(),
    category: enumeration(IMAGE_CATEGORIES, version === "2.3.0"),
    type: ciString(4),
    width: z.int().min(0).max(99999).optional(),
    height: z.int().min(0).max(99999).optional(),
  });

export const businessDetails = (version: VersionNumber) =>
  z.looseObject({ name: text(100), website: url().optional(), logo: image(version).optional() });

const ROLES_22 = ["CPO", "EMSP", "HUB", "NAP", "NSP", "OTHER", "SCSP"] as const;
const ROLES_23 = ["CPO", "EMSP", "NAP", "NSP", "OTHER", "SCSP"] as const;
export const role = (version: VersionNumber) => (version === "2.3.0" ? enumeration(ROLES_23) : enumeration(ROLES_22));

export const taxAmount = () =>
  z.looseObject({ name: text(), account_number: text().optional(), percentage: z.number().optional(), amount: z.number() });

/** Price: `before_taxes`/`taxes` in 2.3.0, `excl_vat`/`incl_vat` in 2.2.1; 2.1.1 has plain numbers instead. */
export const price = (version: VersionNumber) =>
  version === "2.3.0"
    ? z.looseObject({ before_taxes: z.number(), taxes: z.array(taxAmount()).optional() })
    : z.looseObject({ excl_vat: z.number(), incl_vat: z.number().optional() });

export const priceLimit = () => z.looseObject({ before_taxes: z.number(), after_taxes: z.number().optional() });

const ENERGY_SOURCES = ["NUCLEAR", "GENERAL_FOSSIL", "COAL", "GAS", "GENERAL_GREEN", "SOLAR", "WIND", "WATER"] as const;
const IMPACTS = ["NUCLEAR_WASTE", "CARBON_DIOXIDE"] as const;

export const energyMix = (version: VersionNumber) =>
  z.looseObject({
    is_green_energy: z.boolean(),
    energy_sources: z.array(z.looseObject({ source: enumeration(ENERGY_SOURCES), percentage: z.number().min(0).max(100) })).optional(),
    environ_impact: z
      .array(
        version === "2.1.1"
          ? z.looseObject({ source: enumeration(IMPACTS), amount: z.number() })
          : z.looseObject({ category: enumeration(IMPACTS, version === "2.3.0"), amount: z.number() }),
      )
      .optional(),
    supplier_name: text(64).optional(),
    energy_product_name: text(64).optional(),
  });

/** A PATCH schema: every field optional, `last_updated` required (2.2+), nested objects validated in full. */
export const patchOf = <S extends z.ZodRawShape>(shape: S, version: VersionNumber) => {
  const partial = z.looseObject(shape).partial();
  return version === "2.1.1" ? partial : partial.extend({ last_updated: dateTime() });
};
