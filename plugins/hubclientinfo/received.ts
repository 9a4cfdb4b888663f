import type { GatewayConfig } from "../../config/types";
import type { Store } from "../../core/contract/store";
import type { PartyRef } from "../../core/protocol/types";
import { partyKey, sameParty } from "../../core/protocol/types";
import type { ClientInfo } from "../../core/hub/client-info";

/**
 * ClientInfo that hubs we are connected to reported, pushed to our receiver or pulled from their list (store
 * collection `hubclientinfo:received`): one place, whichever way it came, for every reader (admin API, `?to=`).
 */
export const RECEIVED = "hubclientinfo:received";

export interface ReceivedClientInfo {
  /** the hub partner that reported it */
  partner: string;
  info: ClientInfo;
  received_at: string;
}

const keyOf = (partnerId: string, party: PartyRef) => `${partnerId}|${partyKey(party)}`;

/** ClientInfo about one of our own parties: ours to know, so a hub's report of it is taken and ignored. */
export const aboutOurParty = (config: GatewayConfig, party: PartyRef): boolean => config.parties.some((p) => sameParty(p, party));

/**
 * Stores what hub `partnerId` reported about a party (in its scope: the caller checked), its party named in upper
 * case. A report older than the one kept (its `last_updated`) is left: a pulled page read before a push of a newer
 * status, and stored after it, must not take the party back.
 */
export const storeReceived = async (store: Store, partnerId: string, reported: ClientInfo): Promise<"created" | "updated"> => {
  const info = { ...reported, country_code: reported.country_code.toUpperCase(), party_id: reported.party_id.toUpperCase() };
  const at = Date.parse(info.last_updated);
  let created = false;
  await store.update<ReceivedClientInfo>(RECEIVED, keyOf(partnerId, info), (existing) => {
    created = existing === undefined;
    if (existing && Date.parse(existing.info.last_updated) > at) return undefined;
    return { value: { partner: partnerId, info, received_at: new Date().toISOString() }, sortKey: at || Date.now() };
  });
  return created ? "created" : "updated";
};

export const getReceived = (store: Store, partnerId: string, party: PartyRef): Promise<ReceivedClientInfo | undefined> =>
  store.get<ReceivedClientInfo>(RECEIVED, keyOf(partnerId, party));

export const allReceived = async (store: Store): Promise<ReceivedClientInfo[]> =>
  (await store.range<ReceivedClientInfo>(RECEIVED, { offset: 0, limit: 100_000 })).items;
