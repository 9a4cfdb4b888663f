/**
 * Canonical Charging Profiles model (OCPI 2.2.1 ChargingProfiles module); 2.2.1 and 2.3.0 are
 * identical and 2.1.1 has no such module. Objects keep unknown properties.
 */

export const CHARGING_RATE_UNITS = ["W", "A"] as const;
export type ChargingRateUnit = (typeof CHARGING_RATE_UNITS)[number];

/** The Receiver's immediate answer. */
export const CHARGING_PROFILE_RESPONSE_TYPES = ["ACCEPTED", "NOT_SUPPORTED", "REJECTED", "TOO_OFTEN", "UNKNOWN_SESSION"] as const;
export type ChargingProfileResponseType = (typeof CHARGING_PROFILE_RESPONSE_TYPES)[number];

/** The asynchronous result, from the charge point. There is no TIMEOUT: a gateway that heard nothing posts REJECTED. */
export const CHARGING_PROFILE_RESULT_TYPES = ["ACCEPTED", "REJECTED", "UNKNOWN"] as const;
export type ChargingProfileResultType = (typeof CHARGING_PROFILE_RESULT_TYPES)[number];

/** What a partner asks of the charge point: GET the active profile, PUT a profile, DELETE it. */
export const PROFILE_OPERATIONS = ["GET_ACTIVE_PROFILE", "SET_PROFILE", "CLEAR_PROFILE"] as const;
export type ProfileOperation = (typeof PROFILE_OPERATIONS)[number];

export interface ChargingProfilePeriod {
  /** seconds from the start of the profile */
  start_period: number;
  limit: number;
  [extra: string]: unknown;
}

export interface ChargingProfile {
  start_date_time?: string;
  /** seconds */
  duration?: number;
  charging_rate_unit: ChargingRateUnit;
  min_charging_rate?: number;
  charging_profile_period?: ChargingProfilePeriod[];
  [extra: string]: unknown;
}

export interface ActiveChargingProfile {
  /** time of calculation; the profile's times are relative to it */
  start_date_time: string;
  charging_profile: ChargingProfile;
  [extra: string]: unknown;
}

export interface SetChargingProfile {
  charging_profile: ChargingProfile;
  response_url: string;
  [extra: string]: unknown;
}

export interface ChargingProfileResponse {
  result: ChargingProfileResponseType;
  timeout: number;
  [extra: string]: unknown;
}

/**
 * ActiveChargingProfileResult, ChargingProfileResult and ClearProfileResult
 * in one: only the first carries a profile (when ACCEPTED).
 */
export interface ChargingProfileResult {
  result: ChargingProfileResultType;
  profile?: ActiveChargingProfile;
  [extra: string]: unknown;
}
