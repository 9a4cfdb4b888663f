import type { InterfaceRole, Role, VersionNumber } from "./vocabulary";

export * from "./vocabulary";

/** Module identifiers of Part A; open in 2.3.0, so custom strings are allowed too. */
export type ModuleId =
  | "credentials"
  | "locations"
  | "sessions"
  | "cdrs"
  | "tariffs"
  | "tokens"
  | "commands"
  | "chargingprofiles"
  | "hubclientinfo"
  | "payments"
  | "invoicereconciliation"
  | "bookings"
  | (string & {});

/**
 * The configuration module through which a hub tells its connected parties about every other party's connection
 * (OCPI 2.2.1 HubClientInfo module): the one module the kernel's hub (core/hub/hub-connections.ts) addresses
 * itself, as the Hub role requires; every other module's behaviour is declared by its plugin.
 */
export const HUB_CLIENT_INFO: ModuleId = "hubclientinfo";

/** A party as addressed by routing headers and owner path segments. */
export interface PartyRef {
  country_code: string;
  party_id: string;
}

export const partyKey = (p: PartyRef): string => `${p.country_code.toUpperCase()}${p.party_id.toUpperCase()}`;

export const sameParty = (a: PartyRef, b: PartyRef): boolean => partyKey(a) === partyKey(b);

export interface Endpoint {
  identifier: ModuleId;
  role: InterfaceRole;
  url: string;
}

export interface BusinessDetails {
  name: string;
  website?: string;
  logo?: Record<string, unknown>;
}

export interface CredentialsRole extends PartyRef {
  role: Role;
  business_details: BusinessDetails;
}

/** Canonical (2.3.0) credentials object. */
export interface Credentials {
  token: string;
  url: string;
  roles: CredentialsRole[];
  hub_party_id?: string;
}

export const compareVersions = (a: VersionNumber, b: VersionNumber): number => {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
};
