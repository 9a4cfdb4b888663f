import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import {
  ciString,
  countryCode,
  dateTime,
  displayText,
  enumeration,
  language,
  partyId,
  patchOf,
  perVersion,
  text,
} from "../../core/model/common-schemas";
import { tokenType } from "../../core/model/charging";
import { ALLOWED_TYPES, PROFILE_TYPES, WHITELIST_TYPES } from "./model";

/**
 * Wire schemas of the tokens module per version (OCPI 2.2.1 Tokens module). WhitelistType,
 * ProfileType and AllowedType are closed in every version; TokenType is open
 * only in 2.3.0 (core/model/charging.ts).
 */

export const energyContract = () => z.looseObject({ supplier_name: text(64), contract_id: text(64).optional() });

/** Field rules of a 2.2.1 / 2.3.0 Token, as a shape so PATCH schemas can reuse it. */
const tokenShape22 = (version: "2.2.1" | "2.3.0") => ({
  country_code: countryCode(),
  party_id: partyId(),
  uid: ciString(36),
  type: tokenType(version),
  contract_id: ciString(36),
  visual_number: text(64).optional(),
  issuer: text(64),
  group_id: ciString(36).optional(),
  valid: z.boolean(),
  whitelist: enumeration(WHITELIST_TYPES),
  language: language().optional(),
  default_profile_type: enumeration(PROFILE_TYPES).optional(),
  energy_contract: energyContract().optional(),
  last_updated: dateTime(),
});

/** 2.1.1 Token: no owner fields, `auth_id` instead of contract_id, no group/profile/energy contract. */
const tokenShape211 = () => ({
  uid: text(36),
  type: tokenType("2.1.1"),
  auth_id: text(36),
  visual_number: text(64).optional(),
  issuer: text(64),
  valid: z.boolean(),
  whitelist: enumeration(WHITELIST_TYPES),
  language: language().optional(),
  last_updated: dateTime(),
});

const shapeOf = (version: VersionNumber) => (version === "2.1.1" ? tokenShape211() : tokenShape22(version));

const TOKEN_SCHEMAS = perVersion((v) => z.looseObject(shapeOf(v)));
export const tokenSchema = (version: VersionNumber) => TOKEN_SCHEMAS[version];

/** PATCH: every field optional, `last_updated` required in 2.2+ (patchOf). */
export const tokenPatchSchema = (version: VersionNumber) => patchOf(shapeOf(version), version);

/** LocationReferences: 2.1.1 ids are string(39) and it also has connector_ids. */
export const locationReferencesSchema = (version: VersionNumber) =>
  version === "2.1.1"
    ? z.looseObject({
        location_id: text(39),
        evse_uids: z.array(text(39)).optional(),
        connector_ids: z.array(text(36)).optional(),
      })
    : z.looseObject({ location_id: ciString(36), evse_uids: z.array(ciString(36)).optional() });

/** AuthorizationInfo: 2.2+ carries the Token and an authorization_reference, 2.1.1 neither. */
export const authorizationInfoSchema = (version: VersionNumber) =>
  version === "2.1.1"
    ? z.looseObject({
        allowed: enumeration(ALLOWED_TYPES),
        location: locationReferencesSchema(version).optional(),
        info: displayText().optional(),
      })
    : z.looseObject({
        allowed: enumeration(ALLOWED_TYPES),
        token: tokenSchema(version),
        location: locationReferencesSchema(version).optional(),
        authorization_reference: ciString(36).optional(),
        info: displayText().optional(),
      });
