import { z } from "zod";
import { dateTime, enumeration, url } from "../../core/model/common-schemas";
import { CHARGING_PROFILE_RESPONSE_TYPES, CHARGING_PROFILE_RESULT_TYPES, CHARGING_RATE_UNITS } from "./model";

/** Wire schemas of the chargingprofiles module; the same in 2.2.1 and 2.3.0. */

const seconds = () => z.int({ message: "must be a whole number of seconds" }).min(0, { message: "must be >= 0" });

// built once (core/model/common-schemas.ts perVersion): the receivers and the sender parse with them per request
const CHARGING_PROFILE = z.looseObject({
  start_date_time: dateTime().optional(),
  duration: seconds().optional(),
  charging_rate_unit: enumeration(CHARGING_RATE_UNITS),
  min_charging_rate: z.number().optional(),
  charging_profile_period: z.array(z.looseObject({ start_period: seconds(), limit: z.number() })).optional(),
});
export const chargingProfileSchema = () => CHARGING_PROFILE;

const ACTIVE_CHARGING_PROFILE = z.looseObject({ start_date_time: dateTime(), charging_profile: CHARGING_PROFILE });
export const activeChargingProfileSchema = () => ACTIVE_CHARGING_PROFILE;

export const setChargingProfileSchema = () => z.looseObject({ charging_profile: chargingProfileSchema(), response_url: url() });

export const chargingProfileResponseSchema = () => z.looseObject({ result: enumeration(CHARGING_PROFILE_RESPONSE_TYPES), timeout: seconds() });

/** The body of all three result kinds; `profile` belongs to ActiveChargingProfileResult. */
export const chargingProfileResultSchema = () =>
  z.looseObject({ result: enumeration(CHARGING_PROFILE_RESULT_TYPES), profile: activeChargingProfileSchema().optional() });
