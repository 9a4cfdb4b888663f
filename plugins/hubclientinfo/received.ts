import type { Store } from "../../core/store/port";
import type { PartyRef } from "../../core/protocol/types";
import { partyKey } from "../../core/protocol/types";
import type { ClientInfo } from "../../core/hub/client-info";

/** ClientInfo pushed to us by hubs we are connected to (store collection `hubclientinfo:received`). */
export const RECEIVED = "hubclientinfo:received";

export interface ReceivedClientInfo {
  /** the hub partner that pushed it */
  partner: string;
  info: ClientInfo;
  received_at: string;
}

const keyOf = (partnerId: string, party: PartyRef) => `${partnerId}|${partyKey(party)}`;

export const storeReceived = async (store: Store, partnerId: string, info: ClientInfo): Promise<"created" | "updated"> => {
  const key = keyOf(partnerId, info);
  const existing = await store.get<ReceivedClientInfo>(RECEIVED, key);
  const value: ReceivedClientInfo = { partner: partnerId, info, received_at: new Date().toISOString() };
  await store.put(RECEIVED, key, value, Date.parse(info.last_updated) || Date.now());
  return existing ? "updated" : "created";
};

export const getReceived = (store: Store, partnerId: string, party: PartyRef): Promise<ReceivedClientInfo | undefined> =>
  store.get<ReceivedClientInfo>(RECEIVED, keyOf(partnerId, party));

export const allReceived = async (store: Store): Promise<ReceivedClientInfo[]> =>
  (await store.range<ReceivedClientInfo>(RECEIVED, { offset: 0, limit: 100_000 })).items;
