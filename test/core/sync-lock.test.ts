import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Store } from "../../core/contract/store";
import { RedisStore } from "../../core/store/redis-store";
import { SqliteStore } from "../../core/store/sqlite-store";
import { Lease } from "../../core/sync/lease";
import { SyncStates } from "../../core/sync/sync-state";

/**
 * The two store mechanisms that keep scheduled pulls to one instance: the
 * lease a pull holds (a store lock renewed while it runs) and the per-tick
 * claim. Each runs on two connections to one SQLite file and to one Redis
 * key prefix, as two gateway instances would share them.
 */

const TTL_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Backend {
  /** a new connection to the same data */
  connect(): Promise<Store>;
  cleanup(): void;
}

const sqliteBackend = (): Backend => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ocpi-sync-lock-"));
  const file = path.join(dir, "gateway.db");
  return { connect: async () => SqliteStore.open(file), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
};

const redisBackend = (): Backend => {
  const prefix = `test:${randomUUID()}:`;
  return {
    connect: () => {
      if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server and sets it");
      return RedisStore.connect({ target: { url: process.env.REDIS_URL }, keyPrefix: prefix });
    },
    cleanup: () => undefined,
  };
};

describe.each([
  ["a SQLite file", sqliteBackend],
  ["Redis", redisBackend],
])("sync lease and tick claims on %s", (_name, makeBackend) => {
  const backend = makeBackend();
  const stores: Store[] = [];
  let a: Store;
  let b: Store;
  let lock = "";

  const connect = async (): Promise<Store> => {
    const store = await backend.connect();
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    a = await connect();
    b = await connect();
  });

  beforeEach(() => {
    lock = `sync:partner:${randomUUID()}`;
  });

  afterAll(async () => {
    for (const store of stores) await store.close();
    backend.cleanup();
  });

  it("gives the lock to one holder, and keeps it held past its TTL while renewed", async () => {
    const first = await Lease.acquire(a, lock, TTL_MS);
    expect(first).toBeDefined();
    expect(await Lease.acquire(b, lock, TTL_MS)).toBeUndefined();
    await sleep(TTL_MS * 3);
    expect(first!.lost).toBe(false);
    expect(await Lease.acquire(b, lock, TTL_MS)).toBeUndefined();
    await first!.release();
    const second = await Lease.acquire(b, lock, TTL_MS);
    expect(second).toBeDefined();
    await second!.release();
  });

  it("frees the lock of a holder that stopped renewing (a crashed instance) within one TTL", async () => {
    // A raw store lock stands for the lease of a process that died: nothing renews it.
    expect(await a.acquireLock(lock, "crashed-instance", TTL_MS)).toBe(true);
    expect(await Lease.acquire(b, lock, TTL_MS)).toBeUndefined();
    await sleep(TTL_MS + 50);
    const takeover = await Lease.acquire(b, lock, TTL_MS);
    expect(takeover).toBeDefined();
    // The crashed holder's late release does not free the new holder's lock.
    await a.releaseLock(lock, "crashed-instance");
    expect(await Lease.acquire(a, lock, TTL_MS)).toBeUndefined();
    await takeover!.release();
  });

  it("reports the lease lost once its store is unreachable for a TTL, and another instance takes over", async () => {
    const partitioned = await connect();
    const lease = await Lease.acquire(partitioned, lock, TTL_MS);
    expect(lease).toBeDefined();
    await partitioned.close();
    expect(lease!.lost).toBe(false);
    await sleep(TTL_MS + 150);
    expect(lease!.lost).toBe(true);
    const takeover = await Lease.acquire(b, lock, TTL_MS);
    expect(takeover).toBeDefined();
    await lease!.release(); // on a closed store: harmless
    expect(takeover!.lost).toBe(false);
    await takeover!.release();
  });

  it("lets exactly one of two instances claim a tick, and never an older one afterwards", async () => {
    const partner = `p-${randomUUID()}`;
    const [onA, onB] = [new SyncStates(a), new SyncStates(b)];
    const tick = Date.UTC(2026, 0, 1, 12, 0, 0);
    for (let i = 0; i < 20; i++) {
      const claims = await Promise.all([onA.claimTick(partner, "locations", tick + i * 1000), onB.claimTick(partner, "locations", tick + i * 1000)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
    }
    // an instance whose clock lags fires the same tick late: it is not run again
    expect(await onB.claimTick(partner, "locations", tick + 5000)).toBe(false);
    // ticks are per partner and module
    expect(await onB.claimTick(partner, "tariffs", tick)).toBe(true);
  });

  it("keeps the watermark of the latest completed pull, never moving it back", async () => {
    const partner = `p-${randomUUID()}`;
    const states = new SyncStates(a);
    expect(await states.get(partner, "locations")).toEqual({});
    await states.claimTick(partner, "locations", 5);
    await states.completed(partner, "locations", 2000);
    await states.completed(partner, "locations", 1000);
    expect(await new SyncStates(b).get(partner, "locations")).toEqual({ watermark: 2000, lastTick: 5 });
  });
});
