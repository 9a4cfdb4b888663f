import { z } from "zod";
import { readTypedStrings } from "../kit";
import type { Tariff } from "./ocpi";
import { DEFAULT_EVSE_ID_PATTERN, type SteveMappingSettings } from "./mapping/settings";

/**
 * `adapters.steve` in gateway.config.yaml: zod schema, defaults, and errors as
 * `path: message` lines like config/schema.ts (messages say what is expected
 * and never echo the value: it may be a password).
 *
 *   database:   host, port (3306), user, password, database (stevedb)
 *   rest:       base_url (…/steve), user, password (the web user's API password),
 *               timeout_ms (120000: SteVe holds the call until the station answers),
 *               answer_wait_ms (1000: how long a command's immediate answer waits for SteVe; see rest/commands.ts)
 *   poll_interval_ms (2000), poll_overlap_ms (60000: station clocks, see poller.ts)
 *   locations:  our party, currency, static Location fields, groups of charge boxes, per-box overrides
 *   tariffs:    2.3.0 Tariffs the connectors' tariff_ids name (priced by the tariff engine)
 *   unknown_tags: allow | deny | ask_emsp (tags.ts)
 *   bookings:   the bookable Locations, their calendars' horizon and increment, the booking terms and fee tariffs
 *               (bookings/availability.ts; docs/steve.md, "Bookings")
 */

const MESSAGES = {
  text: "must be a non-empty string",
  port: "must be an integer between 1 and 65535",
  baseUrl: "must be an absolute http:// or https:// URL without user name or password (use rest.user and rest.password)",
  countryCode: "must be exactly 2 uppercase letters (ISO 3166-1 alpha-2)",
  partyId: "must be exactly 3 uppercase letters or digits",
  currency: "must be an ISO 4217 code of 3 uppercase letters",
  country: "must be an ISO 3166 country code (alpha-2 or alpha-3)",
  coordinate: "must be decimal degrees as a string, e.g. \"52.5200066\"",
  timeZone: "must be an IANA time zone name, e.g. Europe/Berlin",
  tariffRef: "names no tariff in adapters.steve.tariffs",
  duplicateTariff: "tariff id used twice",
  unknownTags: "must be one of: allow, deny, ask_emsp",
} as const;

/** Keys under `adapters.steve` whose values are secrets (masked by check-config, never logged). */
export const SECRET_SETTINGS = ["database.password", "rest.password"] as const;

const text = z.string({ error: MESSAGES.text }).min(1, MESSAGES.text);
const ms = (min: number, max: number, fallback: number) => {
  const message = `must be a whole number of milliseconds between ${min} and ${max}`;
  return z.number().int(message).min(min, message).max(max, message).default(fallback);
};

const httpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
  } catch {
    return false;
  }
}, MESSAGES.baseUrl);

const validTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};
const timeZone = z.string().refine(validTimeZone, MESSAGES.timeZone);

const degrees = z.string().regex(/^-?\d{1,3}\.\d{5,7}$/, MESSAGES.coordinate);

const overrides = {
  name: text.optional(),
  address: text.optional(),
  city: text.optional(),
  postal_code: text.optional(),
  state: text.optional(),
  country: z.string().regex(/^[A-Za-z]{2,3}$/, MESSAGES.country).optional(),
  coordinates: z.strictObject({ latitude: degrees, longitude: degrees }).optional(),
  time_zone: timeZone.optional(),
  parking_type: text.optional(),
  facilities: z.array(text).optional(),
  opening_times: z.looseObject({}).optional(),
  charging_when_closed: z.boolean().optional(),
  operator: z.looseObject({ name: text }).optional(),
  suboperator: z.looseObject({ name: text }).optional(),
  owner: z.looseObject({ name: text }).optional(),
  help_phone: text.optional(),
  tariff_ids: z.array(text).optional(),
};

/** The global static fields; the global time_zone is the default one, required-with-default below. */
const { time_zone: _zone, ...defaultsOnly } = overrides;

const locationsSchema = z.strictObject({
  country_code: z.string().regex(/^[A-Z]{2}$/, MESSAGES.countryCode),
  party_id: z.string().regex(/^[A-Z0-9]{3}$/, MESSAGES.partyId),
  currency: z.string().regex(/^[A-Z]{3}$/, MESSAGES.currency),
  publish: z.boolean().default(true),
  time_zone: timeZone.default("UTC"),
  evse_id_pattern: text.default(DEFAULT_EVSE_ID_PATTERN),
  capabilities: z.array(text).default([]),
  connector_defaults: z
    .strictObject({
      standard: text,
      format: z.enum(["SOCKET", "CABLE"]),
      power_type: text,
      max_voltage: z.number().int().positive(),
      max_amperage: z.number().int().positive(),
      max_electric_power: z.number().int().positive().optional(),
    })
    .default({ standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16 }),
  status: z
    .strictObject({
      preparing: z.enum(["AVAILABLE", "BLOCKED"]).default("AVAILABLE"),
      finishing: z.enum(["CHARGING", "BLOCKED"]).default("CHARGING"),
      heartbeat_stale_after_seconds: z.number().int().positive().optional(),
    })
    .default({ preparing: "AVAILABLE", finishing: "CHARGING" }),
  /** several charge boxes as one Location */
  groups: z.array(z.strictObject({ id: z.string().min(1).max(36), charge_boxes: z.array(text).min(1), ...overrides })).default([]),
  /** per charge box (a Location of its own, or its tariffs inside a group) */
  charge_boxes: z.record(z.string(), z.strictObject(overrides)).default({}),
  ...defaultsOnly,
});

const priceComponent = z.looseObject({
  type: z.enum(["ENERGY", "FLAT", "PARKING_TIME", "TIME"]),
  price: z.number().min(0),
  vat: z.number().min(0).nullish(),
  step_size: z.number().int().min(0),
});

/** Enough of a 2.3.0 Tariff for the tariff engine; the wiring validates it fully against the tariffs module's schema. */
const tariffSchema = z.looseObject({
  id: z.string().min(1).max(36),
  currency: z.string().regex(/^[A-Z]{3}$/, MESSAGES.currency),
  type: z.enum(["AD_HOC_PAYMENT", "PROFILE_CHEAP", "PROFILE_FAST", "PROFILE_GREEN", "REGULAR"]).optional(),
  tax_included: z.enum(["YES", "NO", "N/A"]),
  elements: z.array(z.looseObject({ price_components: z.array(priceComponent).min(1), restrictions: z.looseObject({}).nullish() })).min(1),
  start_date_time: z.iso.datetime().optional(),
  end_date_time: z.iso.datetime().optional(),
  last_updated: z.iso.datetime().optional(),
});

const minutes = z.number().int().min(0);

/** OCPI 2.3.0 Bookings BookingTerms: the required fields checked here, the rest kept as written. */
const bookingTermsSchema = z.looseObject({
  supported_access_methods: z.array(z.enum(["OPEN", "TOKEN", "LICENSE_PLATE", "ACCESS_CODE", "INTERCOM", "PARKING_TICKET"])).min(1),
  change_until_minutes: minutes,
  cancel_until_minutes: minutes,
  noshow_timeout: minutes.optional(),
  early_start_allowed: z.boolean().optional(),
  early_start_time: minutes.optional(),
});

const bookingsSchema = z.strictObject({
  /** the Locations (a charge box id or a group id) that can be booked: one BookingLocation each, one Calendar per EVSE */
  locations: z.array(z.string().min(1).max(36)).min(1),
  /** how far ahead the calendars reach */
  horizon_days: z.number().int().min(1).max(366).default(7),
  /** minutes: booked periods start and end on this grid; absent: any second */
  timeslot_increment: z.number().int().min(1).max(1440).optional(),
  /** minutes before a booked period's start at which SteVe is asked to reserve the EVSE (ReserveNow); 0: at its start */
  reserve_ahead_minutes: z.number().int().min(0).max(1440).default(0),
  booking_terms: bookingTermsSchema,
  /** the booking fee: tariffs of adapters.steve.tariffs whose elements carry a booking restriction */
  tariff_ids: z.array(text).default([]),
  policy: z.looseObject({ reservation_required: z.boolean(), ad_hoc: z.number().optional() }).optional(),
});

export type SteveBookingSettings = z.output<typeof bookingsSchema>;

export const steveSettingsSchema = z
  .strictObject({
    type: z.literal("steve").optional(),
    database: z.strictObject({
      host: text,
      port: z.number().int(MESSAGES.port).min(1, MESSAGES.port).max(65535, MESSAGES.port).default(3306),
      user: text,
      password: z.string(),
      database: text.default("stevedb"),
    }),
    rest: z.strictObject({
      base_url: httpUrl,
      user: text,
      password: text,
      timeout_ms: ms(1_000, 600_000, 120_000),
      answer_wait_ms: ms(0, 10_000, 1_000),
    }),
    poll_interval_ms: ms(100, 600_000, 2_000),
    poll_overlap_ms: ms(0, 3_600_000, 60_000),
    locations: locationsSchema,
    tariffs: z.array(tariffSchema).default([]),
    unknown_tags: z.enum(["allow", "deny", "ask_emsp"], MESSAGES.unknownTags).default("deny"),
    bookings: bookingsSchema.optional(),
  })
  .superRefine((s, ctx) => {
    const ids = new Set<string>();
    s.tariffs.forEach((t, i) => {
      if (ids.has(t.id)) ctx.addIssue({ code: "custom", path: ["tariffs", i, "id"], message: MESSAGES.duplicateTariff });
      ids.add(t.id);
    });
    const check = (refs: string[] | undefined, path: (string | number)[]) =>
      refs?.forEach((id, i) => {
        if (!ids.has(id)) ctx.addIssue({ code: "custom", path: [...path, "tariff_ids", i], message: MESSAGES.tariffRef });
      });
    check(s.locations.tariff_ids, ["locations"]);
    s.locations.groups.forEach((g, i) => check(g.tariff_ids, ["locations", "groups", i]));
    for (const [id, o] of Object.entries(s.locations.charge_boxes)) check(o.tariff_ids, ["locations", "charge_boxes", id]);
    if (s.bookings) check(s.bookings.tariff_ids, ["bookings"]);
  });

type Parsed = z.output<typeof steveSettingsSchema>;

export interface SteveSettings extends Omit<Parsed, "locations" | "tariffs"> {
  /** what the mapping (mapping/*) takes */
  mapping: SteveMappingSettings;
  /** with our party filled in */
  tariffs: Tariff[];
}

/** `["locations", "groups", 0, "id"]` → `adapters.steve.locations.groups[0].id` */
export function formatPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(seg))) out += out ? `.${String(seg)}` : String(seg);
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || "(root)";
}

/** zod's generic messages, without the input value. */
const errorMap = (iss: { code: string; input?: unknown; expected?: string }): string | undefined => {
  if (iss.input === undefined && (iss.code === "invalid_type" || iss.code === "invalid_value")) return "is required";
  if (iss.code === "invalid_type") return `must be ${iss.expected === "object" ? "a mapping" : iss.expected === "array" ? "a list" : `a ${iss.expected}`}`;
  if (iss.code === "unrecognized_keys") return "unknown key";
  return undefined;
};

export type SettingsResult = { ok: true; settings: SteveSettings } | { ok: false; errors: string[] };

/** Validates `adapters.<name>` of type steve; `base` is where it sits in the config, for the messages. */
export function parseSteveSettings(input: unknown, base = "adapters.steve"): SettingsResult {
  const result = steveSettingsSchema.safeParse(readTypedStrings(steveSettingsSchema, input), { error: errorMap as never });
  if (!result.success) {
    const errors = result.error.issues.flatMap((iss) =>
      iss.code === "unrecognized_keys" ? iss.keys.map((k) => `${formatPath(base, [...iss.path, k])}: unknown key`) : [`${formatPath(base, iss.path)}: ${iss.message}`],
    );
    return { ok: false, errors: [...new Set(errors)] };
  }
  const { locations, tariffs, ...rest } = result.data;
  const { groups, ...mapping } = locations;
  const party = { country_code: locations.country_code, party_id: locations.party_id };
  return {
    ok: true,
    settings: {
      ...rest,
      mapping: { ...mapping, locations: groups } as SteveMappingSettings,
      tariffs: tariffs.map((t) => ({ ...party, ...t, last_updated: t.last_updated ?? "1970-01-01T00:00:00Z" }) as Tariff),
    },
  };
}

/** A copy safe to print: every secret replaced by "***". */
export function maskSteveSettings<T extends { database?: { password?: unknown }; rest?: { password?: unknown } }>(settings: T): T {
  const copy = structuredClone(settings);
  if (copy.database?.password !== undefined) copy.database.password = "***";
  if (copy.rest?.password !== undefined) copy.rest.password = "***";
  return copy;
}
