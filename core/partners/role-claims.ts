import type { GatewayConfig, PartnerConfig } from "../../config/types";
import type { CredentialsRole } from "../protocol/types";
import { partyKey, sameParty } from "../protocol/types";
import type { PartnerRecord } from "./partner-record";
import { invalid } from "../http/errors";

/**
 * What a partner may claim in its credentials (POST/PUT, or its answer when
 * we register): the operator decides, the partner only picks within it.
 * - `partners[].roles` lists the roles (and parties) it may take; without
 *   it, any role but HUB for any party. Only a listed HUB may relay others'
 *   objects (core/partners/party-scope.ts), and only a listed HUB may send a
 *   2.3.0 `hub_party_id` (the hub's own party).
 * - A non-hub never claims one of our parties or one another registered
 *   partner holds: parties are first come, first served, so a partner
 *   cannot take over another's tokens, sessions or locations by claiming
 *   its party. A hub's roles list the parties reachable through it (2.3.0);
 *   ours are refused there too.
 * Violations are 2001 naming the role, and nothing is stored.
 */
export const checkRoleClaims = (
  gateway: GatewayConfig,
  partner: PartnerConfig,
  claimed: readonly CredentialsRole[],
  hubPartyId: string | undefined,
  others: readonly PartnerRecord[],
): void => {
  const allowed = partner.roles;
  const hubEntry = allowed?.find((r) => r.role === "HUB");
  claimed.forEach((role, i) => {
    const where = `/roles/${i}`;
    const party = `${role.country_code}/${role.party_id}`;
    if (gateway.parties.some((p) => sameParty(p, role))) throw invalid(`${where}: ${party} is one of our own parties`);
    if (role.role === "HUB") {
      if (!hubEntry) throw invalid(`${where}: role HUB is not allowed for this partner (partners[].roles)`);
      if (hubEntry.party && hubEntry.party !== partyKey(role)) throw invalid(`${where}: role HUB is allowed for ${hubEntry.party} only`);
      return;
    }
    // A configured hub lists the parties reachable through it (2.3.0): any but ours.
    if (hubEntry) return;
    if (allowed && !allowed.some((a) => a.role === role.role && (a.party === undefined || a.party === partyKey(role))))
      throw invalid(`${where}: role ${role.role} for ${party} is not allowed for this partner (partners[].roles)`);
    if (others.some((o) => o.id !== partner.id && o.status === "registered" && o.roles.some((r) => sameParty(r, role))))
      throw invalid(`${where}: ${party} is registered by another partner`);
  });
  if (hubPartyId !== undefined) {
    if (!hubEntry) throw invalid("/hub_party_id: this partner is not configured as a hub (partners[].roles)");
    if (hubEntry.party && hubEntry.party !== hubPartyId.toUpperCase()) throw invalid(`/hub_party_id: must be ${hubEntry.party} for this partner`);
  }
};
