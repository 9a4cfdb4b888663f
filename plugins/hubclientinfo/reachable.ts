import type { GatewayConfig } from "../../config/types";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { PartnerRecord } from "../../core/contract/partner-record";
import type { PartyRef } from "../../core/protocol/types";
import type { Store } from "../../core/contract/store";
import { sameParty } from "../../core/protocol/types";
import { scopeOf } from "../../core/partners/scope-of";
import { inScope } from "../../core/contract/party-scope";
import { invalid } from "../../core/contract/errors";
import { getReceived } from "./received";

const PARTY = /^([A-Za-z]{2})([A-Za-z0-9]{3})$/;

/**
 * The party a request the backend sends to partner `partnerId` is for (admin API `?to=NLCPO`), which becomes
 * its to-headers (core/client/addressee.ts) and is checked on the result that comes back. Absent: none named
 * (the partner's own party). Named: a party the partner registered with (its credentials roles; a 2.3.0 hub
 * lists the parties reachable through it there, OCPI 2.2.1 Credentials object), or, when the operator configured the partner
 * as a hub, one it reported in hubclientinfo (2.2.1 hubs report their parties only there). Never one of ours
 * nor one another registered partner holds.
 * Anything else is 2001 naming `to`: nothing is sent.
 */
export const targetParty = async (
  config: GatewayConfig,
  store: Store,
  registry: PartnerRegistry,
  partnerId: string,
  raw: string | undefined,
): Promise<PartyRef | undefined> => {
  if (raw === undefined) return undefined;
  const match = PARTY.exec(raw);
  if (!match) throw invalid("to: must be a country code and party id (5 characters, e.g. NLCPO)");
  const party = { country_code: match[1].toUpperCase(), party_id: match[2].toUpperCase() };
  const record = await registry.get(partnerId);
  if (!record || !(await listsParty(config, store, registry, record, party)))
    throw invalid(`to: ${raw} is not a party partner ${partnerId} lists (credentials roles or hubclientinfo)`);
  return party;
};

/**
 * Whether `party` is reached through partner `record`: one of its registered parties, or one it reported as a
 * hub; always within its scope (core/partners/party-scope.ts), so never ours nor another registered partner's.
 */
export const listsParty = async (config: GatewayConfig, store: Store, registry: PartnerRegistry, record: PartnerRecord, party: PartyRef): Promise<boolean> =>
  inScope(await scopeOf(config, registry, record), party) &&
  (record.roles.some((r) => r.role !== "HUB" && sameParty(r, party)) ||
    (registry.profileOf(record).hub && (await getReceived(store, record.id, party)) !== undefined));
