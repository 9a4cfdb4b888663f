import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import {
  ciString,
  countryCode,
  currency,
  dateTime,
  enumeration,
  nonEmptyArray,
  partyId,
  patchOf,
  perVersion,
  price,
  text,
} from "../../core/model/common-schemas";
import { authMethod, cdrToken, chargingPeriod } from "../../core/model/charging";
import { PROFILE_TYPES, SESSION_STATUSES } from "./model";
import { evseShape, locationShape } from "../locations/schemas";

/**
 * Wire schemas of the Sessions module per version (OCPI 2.2.1 Sessions module, Part B
 * "Session"). Optional fields accept `null` too (cardinality `?` means
 * "absent or null"); the translators drop such nulls so the canonical
 * object only carries values.
 */

const SESSION_STATUSES_211 = ["ACTIVE", "COMPLETED", "INVALID", "PENDING"] as const;

const sessionShape = (version: "2.3.0" | "2.2.1") => ({
  country_code: countryCode(),
  party_id: partyId(),
  id: ciString(36),
  start_date_time: dateTime(),
  end_date_time: dateTime().nullish(),
  kwh: z.number(),
  cdr_token: cdrToken(version),
  auth_method: authMethod(version),
  authorization_reference: ciString(36).nullish(),
  location_id: ciString(36),
  evse_uid: ciString(36),
  connector_id: ciString(36),
  meter_id: text(255).nullish(),
  currency: currency(),
  charging_periods: z.array(chargingPeriod(version)).nullish(),
  total_cost: price(version).nullish(),
  status: enumeration(SESSION_STATUSES),
  last_updated: dateTime(),
});

/**
 * The 2.1.1 session embeds a full 2.1.1 Location "with only the relevant
 * EVSE/connector" (OCPI 2.1.1 Sessions module, Session object): validated
 * as the Locations module validates a 2.1.1 Location, with at least one
 * EVSE (each with at least one connector), so a Location reduced to its ids
 * is refused naming what it lacks (/location/type, /location/address…).
 */
const location211 = () => z.looseObject({ ...locationShape("2.1.1"), evses: nonEmptyArray(z.looseObject(evseShape("2.1.1"))) });

const sessionShape211 = () => ({
  id: text(36),
  start_datetime: dateTime(),
  end_datetime: dateTime().nullish(),
  kwh: z.number(),
  auth_id: text(36),
  auth_method: authMethod("2.1.1"),
  location: location211(),
  meter_id: text(255).nullish(),
  currency: currency(),
  charging_periods: z.array(chargingPeriod("2.1.1")).nullish(),
  /** 2.1.1 costs are plain numbers excluding VAT */
  total_cost: z.number().nullish(),
  status: enumeration(SESSION_STATUSES_211),
  last_updated: dateTime(),
});

const shapeOf = (version: VersionNumber) => (version === "2.1.1" ? sessionShape211() : sessionShape(version));

const SESSION_SCHEMAS = perVersion((v) => z.looseObject(shapeOf(v)));
export const sessionSchema = (version: VersionNumber) => SESSION_SCHEMAS[version];

/** Every field optional, `last_updated` required in 2.2+ (not in 2.1.1). */
export const sessionPatchSchema = (version: VersionNumber) => patchOf(shapeOf(version), version);

export const chargingPreferencesSchema = () =>
  z.looseObject({
    profile_type: enumeration(PROFILE_TYPES),
    departure_time: dateTime().nullish(),
    energy_need: z.number().nullish(),
    discharge_allowed: z.boolean().nullish(),
  });
