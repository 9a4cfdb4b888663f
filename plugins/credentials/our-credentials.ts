import type { GatewayConfig } from "../../config/types";
import { credentialsRoleOf, type Credentials, type CredentialsRole } from "../../core/protocol/types";
import { absolute, versionsPath } from "../../core/http/urls";

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
