import { randomUUID } from "node:crypto";
import path from "node:path";
import { ClaimTakenError, type Store } from "../../core/contract/store";
import { RedisStore } from "../../core/store/redis-store";
import { SqliteStore } from "../../core/store/sqlite-store";
import { removeTempDirs, tempDir } from "../support/gateway-config";
import { startRedisCluster, type RedisCluster } from "../support/redis-cluster";

/**
 * Store.updateClaiming (what a partner registration's party claims are written with, issue #23 D2): a
 * name is held by one entry of a collection at a time, on each store, also when two stores (two
 * instances) write at the same moment; a refused write writes nothing.
 */

interface Holder {
  id: string;
  names: string[];
  n?: number;
}
const claims = (value: Holder) => value.names;
const set = (value: Holder) => () => ({ value });

const describeClaims = (name: string, open: () => Promise<[Store, Store]>) =>
  describe(`Store.updateClaiming: ${name}`, () => {
    let stores: [Store, Store];
    let seq = 0;
    const fresh = () => `claims-${++seq}`;

    beforeAll(async () => {
      stores = await open();
    }, 60_000);
    afterAll(async () => {
      for (const store of stores ?? []) await store.close();
    });

    it("lets exactly one of two stores writing at once claim a name; the other writes nothing", async () => {
      for (let round = 0; round < 10; round++) {
        const c = fresh();
        const outcomes = await Promise.allSettled([
          stores[0].updateClaiming<Holder>(c, "a", claims, set({ id: "a", names: ["X", `A${round}`] })),
          stores[1].updateClaiming<Holder>(c, "b", claims, set({ id: "b", names: [`B${round}`, "X"] })),
        ]);
        const won = outcomes.filter((o) => o.status === "fulfilled");
        expect(won).toHaveLength(1);
        const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected")!;
        expect(lost.reason).toBeInstanceOf(ClaimTakenError);
        const winner = outcomes[0].status === "fulfilled" ? "a" : "b";
        expect(lost.reason).toMatchObject({ claim: "X", holder: winner });
        expect(await stores[0].get(c, winner === "a" ? "b" : "a")).toBeUndefined();
        // the loser's own name was not taken either: a third entry claims it
        const loserOwn = winner === "a" ? `B${round}` : `A${round}`;
        await expect(stores[1].updateClaiming<Holder>(c, "c", claims, set({ id: "c", names: [loserOwn] }))).resolves.toEqual({ id: "c", names: [loserOwn] });
      }
    });

    it("keeps an entry's names across its own writes and gives up those a new value leaves out", async () => {
      const c = fresh();
      await stores[0].updateClaiming<Holder>(c, "a", claims, set({ id: "a", names: ["X", "Y"] }));
      await stores[1].updateClaiming<Holder>(c, "a", claims, (current) => ({ value: { ...current!, n: 1 } }));
      // a plain update of the entry leaves its claims as they are
      await stores[0].update<Holder>(c, "a", (current) => ({ value: { ...current!, n: 2 } }));
      await expect(stores[1].updateClaiming<Holder>(c, "b", claims, set({ id: "b", names: ["Y"] }))).rejects.toMatchObject({ claim: "Y", holder: "a" });
      await stores[0].updateClaiming<Holder>(c, "a", claims, (current) => ({ value: { ...current!, names: ["X"] } }));
      await expect(stores[1].updateClaiming<Holder>(c, "b", claims, set({ id: "b", names: ["Y"] }))).resolves.toEqual({ id: "b", names: ["Y"] });
      await expect(stores[1].updateClaiming<Holder>(c, "b", claims, set({ id: "b", names: ["X"] }))).rejects.toMatchObject({ claim: "X", holder: "a" });
      // the refused write left b as it was, and the claims are no entries of the collection
      expect(await stores[0].get(c, "b")).toEqual({ id: "b", names: ["Y"] });
      expect((await stores[0].range<Holder>(c, { offset: 0, limit: 10 })).items.map((h) => h.id)).toEqual(["a", "b"]);
    });

    it("writes nothing, claims included, when the change decides so or throws", async () => {
      const c = fresh();
      expect(await stores[0].updateClaiming<Holder>(c, "a", claims, () => undefined)).toBeUndefined();
      await expect(
        stores[0].updateClaiming<Holder>(c, "a", claims, () => {
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      await expect(stores[1].updateClaiming<Holder>(c, "b", claims, set({ id: "b", names: ["X"] }))).resolves.toEqual({ id: "b", names: ["X"] });
    });
  });

describeClaims("SQLite, two connections to one file", async () => {
  const file = path.join(tempDir(), "claims.db");
  return [SqliteStore.open(file), SqliteStore.open(file)];
});

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) throw new Error("REDIS_URL is not set; test/support/redis.global-setup.ts should have set it");
describeClaims("Redis, two clients", async () => {
  const keyPrefix = `test:claims:${randomUUID()}:`;
  return [await RedisStore.connect({ target: { url: redisUrl }, keyPrefix }), await RedisStore.connect({ target: { url: redisUrl }, keyPrefix })];
});

// the claims and the entries in one script: one slot, under the collection's hash tag
let cluster: RedisCluster | undefined;
describeClaims("Redis Cluster, two clients", async () => {
  cluster = await startRedisCluster();
  const target = { nodes: cluster.urls.slice(0, 2) };
  // a fresh cluster's replicas may take their first writes slowly on a loaded machine; what is tested here is the slot
  const options = { target, keyPrefix: "claims:", replicaAckTimeoutMs: 5000 };
  return [await RedisStore.connect(options), await RedisStore.connect(options)];
});

afterAll(async () => {
  await cluster?.stop();
  removeTempDirs();
}, 30_000);
