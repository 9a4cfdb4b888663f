import type { GatewayConfig } from "../../config/types";
import type { Credentials, CredentialsRole } from "../../core/protocol/types";
import { absolute, versionsPath } from "../../core/host/urls";

/** Our own credentials object (canonical form) carrying `token` for the partner. */
export const ourCredentials = (config: GatewayConfig, token: string): Credentials => {
  const roles: CredentialsRole[] = config.parties.map((p) => ({
    role: credentialsRoleOf(p.role),
    business_details: p.business_details as CredentialsRole["business_details"],
    party_id: p.party_id,
    country_code: p.country_code,
  }));
  const credentials: Credentials = { token, url: absolute(config.server.public_url, versionsPath()), roles };
  if (config.server.hub_party_id) credentials.hub_party_id = config.server.hub_party_id;
  return credentials;
};

/**
 * A payment-terminal provider is not a value of the Role enum in any 2.3.0
 * branch (OCPI 2.3.0 Payments module, "spec gap"; presumably OTHER): a `PTP` party
 * is declared as OTHER in our credentials, in every version.
 */
export const credentialsRoleOf = (role: string): CredentialsRole["role"] => (role === "PTP" ? "OTHER" : role) as CredentialsRole["role"];
