/**
 * The Store contract (core/store/port.ts): what every store implementation does alike, run against each of
 * them by test/core/store-contract-*.test.ts. Its rules: records.ts (entries), ranges-and-locks.ts and indexed-records.ts.
 */
import type { Store } from "../../../core/contract/store";
import type { Doc, StoreFactory } from "./context";
import { recordRules } from "./records";
import { rangeAndLockRules } from "./ranges-and-locks";
import { indexedRecordRules } from "./indexed-records";

/**
 * The Redis command timeout (and, on a cluster, the wait for a replica's acknowledgement) of the contract's stores. The contract is about what a store answers, not how
 * fast: the suite shares one redis-server with every other test file and runs under CPU load, where a batch
 * of 1,500 pipelined writes can wait past the product's 1 s default (DEFAULT_REDIS_COMMAND_TIMEOUT_MS) and
 * fail as StoreUnavailableError. Timeouts have tests of their own (test/e2e/store-outage.test.ts).
 */
export const CONTRACT_COMMAND_TIMEOUT_MS = 15_000;

export function describeStoreContract(name: string, factory: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let seq = 0;
    // A fresh collection per test, so tests never see each other's entries.
    const fresh = (label: string) => `${label}-${++seq}`;

    // generous: the cluster variant starts six redis-servers in its first open()
    beforeAll(async () => {
      store = await factory.open();
    }, 30_000);
    afterAll(async () => {
      await store?.close();
    });

    const keysOf = async (collection: string, query: { from?: number; to?: number } = {}) =>
      (await store.range<Doc>(collection, { ...query, offset: 0, limit: 1000 })).items.map((d) => d.id);
    const context = { store: () => store, factory, fresh, keysOf };
    recordRules(context);
    rangeAndLockRules(context);
    indexedRecordRules(context);
  });
}
