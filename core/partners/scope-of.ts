import type { GatewayConfig } from "../../config/types";
import type { PartyRef } from "../protocol/types";
import type { PartnerRecord } from "../contract/partner-record";
import type { PartnerRegistry } from "./partner-registry";
import type { PartyScope } from "../contract/party-scope";

const partyOf = (p: PartyRef): PartyRef => ({ country_code: p.country_code.toUpperCase(), party_id: p.party_id.toUpperCase() });

/**
 * The scope of a registered partner (core/partners/party-scope.ts): its
 * registered parties and, for a configured hub, everything but ours, other
 * partners' registered parties and the parties reserved for other partners
 * in config (`partners[].roles`). Reads the other registrations only for hubs.
 */
export const scopeOf = async (config: GatewayConfig, registry: PartnerRegistry, record: PartnerRecord): Promise<PartyScope> => {
  const parties = record.roles.filter((r) => r.role !== "HUB").map(partyOf);
  if (!registry.profileOf(record).hub) return { parties, relay: false, excluded: [] };
  const others = (await registry.list())
    .filter((r) => r.id !== record.id && r.status === "registered")
    .flatMap((r) => r.roles.map(partyOf));
  // a party another partner's `partners[].roles` names is reserved for it, registered or not (core/partners/role-claims.ts)
  const reserved = config.partners
    .filter((p) => p.id !== record.id)
    .flatMap((p) => p.roles ?? [])
    .flatMap((r) => (r.party ? [partyOf({ country_code: r.party.slice(0, 2), party_id: r.party.slice(2) })] : []));
  return { parties, relay: true, excluded: [...config.parties.map(partyOf), ...others, ...reserved] };
};
