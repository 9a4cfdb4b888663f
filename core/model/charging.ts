import { z } from "zod";
import type { VersionNumber } from "../protocol/types";
import { ciString, countryCode, dateTime, enumeration, nonEmptyArray, partyId } from "./common-schemas";

/** Types Sessions and CDRs share: CdrToken, ChargingPeriod, CdrDimension, AuthMethod, TokenType. */

/** Canonical (2.3.0) CdrDimension and ChargingPeriod. */
export interface CdrDimension {
  type: string;
  volume: number;
  [extra: string]: unknown;
}

export interface ChargingPeriod {
  start_date_time: string;
  dimensions: CdrDimension[];
  tariff_id?: string;
  [extra: string]: unknown;
}

export const TOKEN_TYPES_22 = ["AD_HOC_USER", "APP_USER", "OTHER", "RFID"] as const;
export const TOKEN_TYPES_23 = ["AD_HOC_USER", "APP_USER", "EMAID", "OTHER", "RFID"] as const;
export const TOKEN_TYPES_211 = ["OTHER", "RFID"] as const;

export const tokenType = (version: VersionNumber) =>
  version === "2.3.0" ? enumeration(TOKEN_TYPES_23, true) : version === "2.2.1" ? enumeration(TOKEN_TYPES_22) : enumeration(TOKEN_TYPES_211);

export const authMethod = (version: VersionNumber) =>
  version === "2.1.1" ? enumeration(["AUTH_REQUEST", "WHITELIST"] as const) : enumeration(["AUTH_REQUEST", "COMMAND", "WHITELIST"] as const);

export const cdrToken = (version: VersionNumber) =>
  z.looseObject({
    country_code: countryCode(),
    party_id: partyId(),
    uid: ciString(36),
    type: tokenType(version),
    contract_id: ciString(36),
  });

const DIMENSIONS_22 = [
  "CURRENT", "ENERGY", "ENERGY_EXPORT", "ENERGY_IMPORT", "MAX_CURRENT", "MIN_CURRENT", "MAX_POWER", "MIN_POWER",
  "PARKING_TIME", "POWER", "RESERVATION_TIME", "STATE_OF_CHARGE", "TIME",
] as const;
const DIMENSIONS_23 = [...DIMENSIONS_22, "RESERVATION_EXPIRES", "RESERVATION_OVERTIME"] as const;
const DIMENSIONS_211 = ["ENERGY", "FLAT", "MAX_CURRENT", "MIN_CURRENT", "PARKING_TIME", "TIME"] as const;

export const cdrDimension = (version: VersionNumber) =>
  z.looseObject({
    type:
      version === "2.3.0" ? enumeration(DIMENSIONS_23) : version === "2.2.1" ? enumeration(DIMENSIONS_22) : enumeration(DIMENSIONS_211),
    volume: z.number(),
  });

export const chargingPeriod = (version: VersionNumber) =>
  z.looseObject({
    start_date_time: dateTime(),
    dimensions: nonEmptyArray(cdrDimension(version)),
    ...(version === "2.1.1" ? {} : { tariff_id: ciString(36).optional() }),
  });
