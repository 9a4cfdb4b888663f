import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import {
  ciString,
  countryCode,
  currency,
  dateTime,
  displayText,
  energyMix,
  enumeration,
  nonEmptyArray,
  partyId,
  patchOf,
  price,
  priceLimit,
  timeOfDay,
  url,
} from "../../core/model/common-schemas";
import {
  BOOKING_RESTRICTION_TYPES,
  DAYS_OF_WEEK,
  RESERVATION_RESTRICTION_TYPES,
  TARIFF_DIMENSION_TYPES,
  TARIFF_TYPES,
  TAX_INCLUDED_VALUES,
} from "./model";

/**
 * Tariff wire schemas per version (OCPI 2.2.1 Tariffs module). Optional fields may be
 * absent or null (cardinality `?`/`*`, §1.5). All enums of this module are
 * closed, also in 2.3.0 (§1.11).
 */

/** YYYY-MM-DD, local date of the Location */
const localDate = () =>
  z.string().regex(/^[12][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/, { message: "must be a date YYYY-MM-DD" });

const integer = () => z.int({ message: "must be an integer" });
const number = () => z.number({ message: "must be a number" });

const restrictions = (version: VersionNumber) =>
  z.looseObject({
    start_time: timeOfDay().nullish(),
    end_time: timeOfDay().nullish(),
    start_date: localDate().nullish(),
    end_date: localDate().nullish(),
    min_kwh: number().nullish(),
    max_kwh: number().nullish(),
    min_power: number().nullish(),
    max_power: number().nullish(),
    min_duration: integer().nullish(),
    max_duration: integer().nullish(),
    day_of_week: z.array(enumeration(DAYS_OF_WEEK)).nullish(),
    ...(version === "2.1.1"
      ? {}
      : {
          min_current: number().nullish(),
          max_current: number().nullish(),
          reservation: enumeration(RESERVATION_RESTRICTION_TYPES).nullish(),
        }),
    ...(version === "2.3.0" ? { booking: enumeration(BOOKING_RESTRICTION_TYPES).nullish() } : {}),
  });

const priceComponent = (version: VersionNumber) =>
  z.looseObject({
    type: enumeration(TARIFF_DIMENSION_TYPES),
    price: number(),
    ...(version === "2.1.1" ? {} : { vat: number().nullish() }),
    step_size: integer().min(0, { message: "must be >= 0" }),
  });

const element = (version: VersionNumber) =>
  z.looseObject({
    price_components: nonEmptyArray(priceComponent(version)),
    restrictions: restrictions(version).nullish(),
  });

/** Fields of the Tariff per version, shared by the full and the PATCH schema. */
const tariffShape = (version: VersionNumber) => {
  const common = {
    id: ciString(36),
    currency: currency(),
    tariff_alt_text: z.array(displayText()).nullish(),
    tariff_alt_url: url().nullish(),
    elements: nonEmptyArray(element(version)),
    energy_mix: energyMix(version).nullish(),
    last_updated: dateTime(),
  };
  if (version === "2.1.1") return common;
  const since22 = {
    ...common,
    country_code: countryCode(),
    party_id: partyId(),
    type: enumeration(TARIFF_TYPES).nullish(),
    start_date_time: dateTime().nullish(),
    end_date_time: dateTime().nullish(),
  };
  if (version === "2.2.1")
    return { ...since22, min_price: price("2.2.1").nullish(), max_price: price("2.2.1").nullish() };
  return {
    ...since22,
    min_price: priceLimit().nullish(),
    max_price: priceLimit().nullish(),
    preauthorize_amount: number().nullish(),
    tax_included: enumeration(TAX_INCLUDED_VALUES),
  };
};

export const tariffSchema = (version: VersionNumber) => z.looseObject(tariffShape(version));

/** Only 2.1.1 has a Tariff PATCH; 2.2+ receivers offer GET/PUT/DELETE. */
export const tariffPatchSchema = (version: VersionNumber) => patchOf(tariffShape(version), version);

export const TARIFF_SCHEMAS = {
  "2.3.0": tariffSchema("2.3.0"),
  "2.2.1": tariffSchema("2.2.1"),
  "2.1.1": tariffSchema("2.1.1"),
} as const;

export const TARIFF_PATCH_SCHEMAS = { "2.1.1": tariffPatchSchema("2.1.1") } as const;
