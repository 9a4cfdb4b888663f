import type { ZodType } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import { defineObjectType } from "../../core/model/object-type";
import { type ObjectType } from "../../core/contract/object-type";
import type { ActiveChargingProfile, ChargingProfile, ChargingProfileResponse, ChargingProfileResult, SetChargingProfile } from "./model";
import {
  activeChargingProfileSchema,
  chargingProfileResponseSchema,
  chargingProfileResultSchema,
  chargingProfileSchema,
  setChargingProfileSchema,
} from "./schemas";

/** The module's objects: one wire form in both versions it exists in (2.2+), so nothing to translate. */
const sameIn22And23 = <T>(name: string, schema: () => ZodType): ObjectType<T> => {
  const shared = schema();
  // No 2.1.1 schema: the module's routes are not mounted for 2.1.1 and it is never sent to a 2.1.1 partner.
  const schemas = { "2.3.0": shared, "2.2.1": shared } as Record<VersionNumber, ZodType>;
  return defineObjectType<T>({ name, schemas, translators: {} });
};

export const chargingProfileType = sameIn22And23<ChargingProfile>("ChargingProfile", chargingProfileSchema);
export const activeChargingProfileType = sameIn22And23<ActiveChargingProfile>("ActiveChargingProfile", activeChargingProfileSchema);
export const setChargingProfileType = sameIn22And23<SetChargingProfile>("SetChargingProfile", setChargingProfileSchema);
export const chargingProfileResponseType = sameIn22And23<ChargingProfileResponse>("ChargingProfileResponse", chargingProfileResponseSchema);
export const chargingProfileResultType = sameIn22And23<ChargingProfileResult>("ChargingProfileResult", chargingProfileResultSchema);
