import type { Store } from "../kit";
import type { KeyValue } from "./contracts";

/** The store collection holding everything the steve adapter remembers (tag registry, watermarks, tokens). */
export const STEVE_COLLECTION = "steve";

/**
 * The engine's KeyValue on the gateway's store, so tag ownership, aliases and
 * the poller's watermarks survive restarts and are shared by every instance
 * on one Redis (the poller still assumes one writer: run it on one instance).
 */
export const storeKeyValue = (store: Store): KeyValue => ({
  get: (key) => store.get<string>(STEVE_COLLECTION, key),
  set: (key, value) => store.put(STEVE_COLLECTION, key, value),
  delete: async (key) => void (await store.delete(STEVE_COLLECTION, key)),
});
