import type { GatewayConfig, PartnerConfig } from "../../config/types";
import type { CredentialsRole } from "../protocol/types";
import { credentialsRoleOf, partyKey, sameParty } from "../protocol/types";
import type { PartnerRecord } from "../contract/partner-record";
import { invalid, type OcpiError } from "../contract/errors";

/**
 * What a partner may claim in its credentials (POST/PUT, or its answer when
 * we register): the operator decides, the partner only picks within it. The
 * registry applies it to every registration (PartnerRegistry.recordRegistration).
 * - `partners[].roles` lists the roles (and parties) it may take; without
 *   it, any role but HUB for any party. Only a listed HUB may relay others'
 *   objects (core/partners/party-scope.ts), and only a listed HUB may send a
 *   2.3.0 `hub_party_id` (the hub's own party). A listed PTP is claimed as
 *   OTHER: PTP is no value of the credentials Role enum in any 2.3.0 branch
 *   (OCPI 2.3.0 Credentials, Role; Payments), so the gateway knows a PTP from
 *   its config, never from its credentials.
 * - A configured hub's other roles list the parties reachable through it
 *   (2.3.0): any role, for any party but those below.
 * - Nobody claims one of our parties, nor a party another partner's
 *   `partners[].roles` names (reserved for it, registered or not: a partner
 *   added without roles cannot take a configured partner's party first).
 * Violations are 2001 naming the role entry, and nothing is stored.
 *
 * A party is held by one partner at a time (heldParties): the registry writes
 * the claim with the registration in one atomic step of the store
 * (Store.updateClaiming), which refuses a party another partner holds
 * (claimTaken), so of two concurrent registrations exactly one wins.
 */
export const checkRoleClaims = (
  gateway: GatewayConfig,
  partner: PartnerConfig,
  claimed: readonly CredentialsRole[],
  hubPartyId: string | undefined,
): void => {
  const allowed = partner.roles;
  const hubEntry = allowed?.find((r) => r.role === "HUB");
  claimed.forEach((role, i) => {
    const where = `/roles/${i}`;
    const party = `${role.country_code}/${role.party_id}`;
    const key = partyKey(role);
    if (gateway.parties.some((p) => sameParty(p, role))) throw invalid(`${where}: ${party} is one of our own parties`);
    if (!allowed?.some((a) => a.party === key) && gateway.partners.some((p) => p.id !== partner.id && p.roles?.some((a) => a.party === key)))
      throw invalid(`${where}: ${party} is another partner's party (partners[].roles)`);
    if (role.role === "HUB") {
      if (!hubEntry) throw invalid(`${where}: role HUB is not allowed for this partner (partners[].roles)`);
      if (hubEntry.party && hubEntry.party !== key) throw invalid(`${where}: role HUB is allowed for ${hubEntry.party} only`);
      return;
    }
    if (hubEntry) return;
    if (allowed && !allowed.some((a) => credentialsRoleOf(a.role) === role.role && (a.party === undefined || a.party === key)))
      throw invalid(`${where}: role ${role.role} for ${party} is not allowed for this partner (partners[].roles)`);
  });
  if (hubPartyId !== undefined) {
    if (!hubEntry) throw invalid("/hub_party_id: this partner is not configured as a hub (partners[].roles)");
    if (hubEntry.party && hubEntry.party !== hubPartyId.toUpperCase()) throw invalid(`/hub_party_id: must be ${hubEntry.party} for this partner`);
  }
};

/** The parties a partner holds (Store.updateClaiming's claims): every role's of a registered partner, a hub's own and those reachable through it. */
export const heldParties = (record: PartnerRecord): string[] => (record.status === "registered" ? [...new Set(record.roles.map(partyKey))] : []);

/** The store refused `party` (ClaimTakenError): another partner holds it. 2001 naming the first role entry of that party. */
export const claimTaken = (claimed: readonly CredentialsRole[], party: string): OcpiError => {
  const i = Math.max(0, claimed.findIndex((r) => partyKey(r) === party));
  const role = claimed[i];
  return invalid(`/roles/${i}: ${role ? `${role.country_code}/${role.party_id}` : party} is registered by another partner`);
};
