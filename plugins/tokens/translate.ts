import { defineObjectType } from "../../core/model/object-type";
import { type TranslationContext, type TranslationLoss } from "../../core/contract/object-type";
import { TOKEN_TYPES_211, TOKEN_TYPES_22 } from "../../core/model/charging";
import type { AuthorizationInfo, LocationReferences, Token, TokenType } from "./model";
import {
  authorizationInfoSchema,
  locationReferencesSchema,
  tokenPatchSchema,
  tokenSchema,
} from "./schemas";

/**
 * Token, LocationReferences and AuthorizationInfo across versions. The
 * canonical form is 2.3.0; 2.2.1 differs only in the closed TokenType, 2.1.1
 * in names (auth_id), missing owner fields and missing 2.2 additions. Every
 * translator maps only the keys present, so PATCH fragments pass too.
 */

type Wire = Record<string, unknown>;

/** Every field a translation drops; the same names are passed to tx.dropped. */
export const TOKENS_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  { object: "Token", field: "type", versions: ["2.2.1"], why: "2.3.0-only TokenType values (EMAID, custom) are sent as OTHER" },
  { object: "Token", field: "type", versions: ["2.1.1"], why: "2.1.1 TokenType has only OTHER and RFID; other values are sent as OTHER" },
  { object: "Token", field: "group_id", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "Token", field: "default_profile_type", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "Token", field: "energy_contract", versions: ["2.1.1"], why: "not in 2.1.1" },
  { object: "LocationReferences", field: "connector_ids", versions: ["2.1.1"], why: "2.2+ references EVSEs only" },
  { object: "AuthorizationInfo", field: "token", versions: ["2.1.1"], why: "2.1.1 AuthorizationInfo carries no Token" },
  { object: "AuthorizationInfo", field: "authorization_reference", versions: ["2.1.1"], why: "not in 2.1.1" },
];

/** A TokenType the older version knows, or OTHER (reported as dropped). */
const narrowType = (type: TokenType, known: readonly string[], version: string, tx: TranslationContext): TokenType => {
  if (known.includes(type)) return type;
  tx.dropped("type", `${version} has no TokenType ${type}; sent as OTHER`);
  return "OTHER";
};

const tokenDown221 = (token: Token, tx: TranslationContext): Wire =>
  token.type === undefined ? { ...token } : { ...token, type: narrowType(token.type, TOKEN_TYPES_22, "2.2.1", tx) };

const TOKEN_FIELDS_NOT_IN_211 = ["group_id", "default_profile_type", "energy_contract"] as const;

const tokenUp211 = (wire: Wire, tx: TranslationContext): Token => {
  const { auth_id, ...rest } = wire;
  const token: Wire = { ...rest };
  if (auth_id !== undefined) token.contract_id = auth_id;
  // A whole 2.1.1 object (it has its uid) gets the owner the path or the partner's role implies.
  if (wire.uid !== undefined && tx.owner) {
    token.country_code ??= tx.owner.country_code;
    token.party_id ??= tx.owner.party_id;
  }
  return token as Token;
};

const tokenDown211 = (token: Token, tx: TranslationContext): Wire => {
  const { country_code: _cc, party_id: _pid, contract_id, type, ...rest } = token;
  const wire: Wire = { ...rest };
  // The owner is implied by the URL or the credentials in 2.1.1: not a loss.
  for (const field of TOKEN_FIELDS_NOT_IN_211) {
    if (wire[field] === undefined) continue;
    tx.dropped(field, "not in 2.1.1");
    delete wire[field];
  }
  if (contract_id !== undefined) wire.auth_id = contract_id;
  if (type !== undefined) wire.type = narrowType(type, TOKEN_TYPES_211, "2.1.1", tx);
  return wire;
};

export const tokenObjectType = defineObjectType<Token>({
  name: "Token",
  schemas: { "2.3.0": tokenSchema("2.3.0"), "2.2.1": tokenSchema("2.2.1"), "2.1.1": tokenSchema("2.1.1") },
  patchSchemas: { "2.3.0": tokenPatchSchema("2.3.0"), "2.2.1": tokenPatchSchema("2.2.1"), "2.1.1": tokenPatchSchema("2.1.1") },
  translators: {
    "2.2.1": { up: (wire) => wire as Token, down: tokenDown221 },
    "2.1.1": { up: tokenUp211, down: tokenDown211 },
  },
});

export const locationReferencesObjectType = defineObjectType<LocationReferences>({
  name: "LocationReferences",
  schemas: {
    "2.3.0": locationReferencesSchema("2.3.0"),
    "2.2.1": locationReferencesSchema("2.2.1"),
    "2.1.1": locationReferencesSchema("2.1.1"),
  },
  translators: {
    "2.2.1": { up: (wire) => wire as LocationReferences, down: (refs) => refs },
    "2.1.1": {
      up: (wire: Wire, tx) => {
        const { connector_ids, ...rest } = wire;
        if (connector_ids !== undefined) tx.dropped("connector_ids", "2.2+ references EVSEs only");
        return rest as LocationReferences;
      },
      down: (refs) => refs,
    },
  },
});

/**
 * What a 2.1.1 eMSP answers to authorize lacks the Token; the canonical type
 * requires it, so answers read from partners use this looser type.
 */
export type ReceivedAuthorizationInfo = Omit<AuthorizationInfo, "token"> & { token?: Token };

const mapLocation = (info: Wire, map: (refs: LocationReferences) => unknown): Wire =>
  info.location === undefined ? info : { ...info, location: map(info.location as LocationReferences) };

export const authorizationInfoObjectType = defineObjectType<ReceivedAuthorizationInfo>({
  name: "AuthorizationInfo",
  schemas: {
    "2.3.0": authorizationInfoSchema("2.3.0"),
    "2.2.1": authorizationInfoSchema("2.2.1"),
    "2.1.1": authorizationInfoSchema("2.1.1"),
  },
  translators: {
    "2.2.1": {
      up: (wire) => wire as ReceivedAuthorizationInfo,
      down: (info, tx) => (info.token === undefined ? info : { ...info, token: tokenDown221(info.token, tx) }),
    },
    "2.1.1": {
      up: (wire: Wire, tx) =>
        mapLocation(wire, (refs) => locationReferencesObjectType.up(refs, "2.1.1", tx)) as ReceivedAuthorizationInfo,
      down: (info, tx) => {
        const { token, authorization_reference, ...rest } = info;
        if (token !== undefined) tx.dropped("token", "2.1.1 AuthorizationInfo carries no Token");
        if (authorization_reference !== undefined) tx.dropped("authorization_reference", "not in 2.1.1");
        return rest;
      },
    },
  },
});
