/**
 * Canonical (OCPI 2.3.0) objects of the tokens module. Other versions are
 * translated to and from these at the edge (translate.ts).
 */

/** OpenEnum in 2.3.0: known values plus custom ones. */
export type TokenType = "AD_HOC_USER" | "APP_USER" | "EMAID" | "OTHER" | "RFID" | (string & {});

export const WHITELIST_TYPES = ["ALWAYS", "ALLOWED", "ALLOWED_OFFLINE", "NEVER"] as const;
export type WhitelistType = (typeof WHITELIST_TYPES)[number];

export const PROFILE_TYPES = ["CHEAP", "FAST", "GREEN", "REGULAR"] as const;
export type ProfileType = (typeof PROFILE_TYPES)[number];

export const ALLOWED_TYPES = ["ALLOWED", "BLOCKED", "EXPIRED", "NO_CREDIT", "NOT_ALLOWED"] as const;
export type AllowedType = (typeof ALLOWED_TYPES)[number];

/** The type a token path means when `?type=` is omitted (2.2+). */
export const DEFAULT_TOKEN_TYPE: TokenType = "RFID";

export interface EnergyContract {
  supplier_name: string;
  contract_id?: string;
}

export interface Token {
  country_code: string;
  party_id: string;
  uid: string;
  type: TokenType;
  contract_id: string;
  visual_number?: string;
  issuer: string;
  group_id?: string;
  valid: boolean;
  whitelist: WhitelistType;
  language?: string;
  default_profile_type?: ProfileType;
  energy_contract?: EnergyContract;
  last_updated: string;
  /** 2.3.0 extensibility: unknown properties are kept */
  [extra: string]: unknown;
}

/** Identity of a token within its owner: uid and type together (OCPI 2.2.1 Tokens module). */
export interface TokenRef {
  uid: string;
  type: TokenType;
}

export interface LocationReferences {
  location_id: string;
  evse_uids?: string[];
  [extra: string]: unknown;
}

export interface DisplayText {
  language: string;
  text: string;
}

export interface AuthorizationInfo {
  allowed: AllowedType;
  token: Token;
  location?: LocationReferences;
  authorization_reference?: string;
  info?: DisplayText;
  [extra: string]: unknown;
}
