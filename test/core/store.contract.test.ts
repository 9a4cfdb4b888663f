import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import type { Store } from "../../core/store/port";
import { RedisStore } from "../../core/store/redis-store";
import { SqliteStore } from "../../core/store/sqlite-store";
import { startRedisCluster, type RedisCluster } from "../support/redis-cluster";

interface Doc {
  id: string;
  n: number;
}

interface StoreFactory {
  /** opens a store; every call reaches the same data when `persistent` */
  open(): Promise<Store>;
  persistent: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function describeStoreContract(name: string, factory: StoreFactory): void {
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

    describe("get / put / delete", () => {
      it("round-trips JSON values exactly", async () => {
        const c = fresh("roundtrip");
        const value = { s: "héllo ⚡", n: 1.5, b: false, nil: null, list: [1, "two", { three: 3 }], nested: { deep: { x: [] } } };
        await store.put(c, "k", value, 5);
        expect(await store.get(c, "k")).toStrictEqual(value);
        await store.put(c, "str", "plain");
        expect(await store.get(c, "str")).toBe("plain");
        await store.put(c, "zero", 0);
        expect(await store.get(c, "zero")).toBe(0);
      });

      it("returns undefined for a missing key", async () => {
        expect(await store.get(fresh("missing"), "nope")).toBeUndefined();
      });

      it("overwrites the value and re-indexes at the new sort key", async () => {
        const c = fresh("overwrite");
        await store.put<Doc>(c, "a", { id: "a", n: 1 }, 10);
        await store.put<Doc>(c, "b", { id: "b", n: 1 }, 20);
        expect(await keysOf(c)).toEqual(["a", "b"]);
        await store.put<Doc>(c, "a", { id: "a", n: 2 }, 30);
        expect(await store.get(c, "a")).toEqual({ id: "a", n: 2 });
        expect(await keysOf(c)).toEqual(["b", "a"]);
        expect(await keysOf(c, { from: 25 })).toEqual(["a"]);
        expect(await keysOf(c, { to: 25 })).toEqual(["b"]);
      });

      it("keeps the current sort key when put has none (0 for a new entry)", async () => {
        const c = fresh("keep-sort");
        await store.put<Doc>(c, "a", { id: "a", n: 1 }, 30);
        await store.put<Doc>(c, "b", { id: "b", n: 1 }, 20);
        await store.put<Doc>(c, "a", { id: "a", n: 2 });
        expect(await keysOf(c)).toEqual(["b", "a"]);
        await store.put<Doc>(c, "z", { id: "z", n: 1 });
        expect(await keysOf(c, { to: 1 })).toEqual(["z"]);
      });

      it("deletes, reporting whether the key existed", async () => {
        const c = fresh("delete");
        await store.put<Doc>(c, "a", { id: "a", n: 1 }, 1);
        await store.put<Doc>(c, "b", { id: "b", n: 1 }, 2);
        expect(await store.delete(c, "a")).toBe(true);
        expect(await store.delete(c, "a")).toBe(false);
        expect(await store.get(c, "a")).toBeUndefined();
        const page = await store.range<Doc>(c, { offset: 0, limit: 10 });
        expect(page).toEqual({ items: [{ id: "b", n: 1 }], total: 1 });
      });
    });

    describe("putIfAbsent", () => {
      it("writes only when the key is absent", async () => {
        const c = fresh("pia");
        expect(await store.putIfAbsent<Doc>(c, "a", { id: "a", n: 1 }, 7)).toBe(true);
        expect(await store.putIfAbsent<Doc>(c, "a", { id: "a", n: 2 }, 99)).toBe(false);
        expect(await store.get(c, "a")).toEqual({ id: "a", n: 1 });
        expect(await keysOf(c, { from: 7, to: 8 })).toEqual(["a"]);
        expect(await keysOf(c, { from: 99 })).toEqual([]);
      });

      it("lets exactly one of many concurrent callers win", async () => {
        const c = fresh("pia-race");
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.putIfAbsent<Doc>(c, "k", { id: "k", n: i })),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get<Doc>(c, "k")).toEqual({ id: "k", n: results.indexOf(true) });
      });
    });

    describe("update", () => {
      it("inserts when absent", async () => {
        const c = fresh("upd-insert");
        const seen: unknown[] = [];
        const result = await store.update<Doc>(c, "a", (current) => {
          seen.push(current);
          return { value: { id: "a", n: 1 }, sortKey: 5 };
        });
        expect(seen).toEqual([undefined]);
        expect(result).toEqual({ id: "a", n: 1 });
        expect(await store.get(c, "a")).toEqual({ id: "a", n: 1 });
        expect(await keysOf(c, { from: 5, to: 6 })).toEqual(["a"]);
      });

      it("modifies the current value and re-indexes when given a sort key", async () => {
        const c = fresh("upd-modify");
        await store.put<Doc>(c, "a", { id: "a", n: 1 }, 10);
        await store.put<Doc>(c, "b", { id: "b", n: 1 }, 20);
        const result = await store.update<Doc>(c, "a", (cur) => ({ value: { id: "a", n: cur!.n + 1 }, sortKey: 30 }));
        expect(result).toEqual({ id: "a", n: 2 });
        expect(await store.get(c, "a")).toEqual({ id: "a", n: 2 });
        expect(await keysOf(c)).toEqual(["b", "a"]);
      });

      it("keeps the sort key when the decision has none", async () => {
        const c = fresh("upd-keep-sort");
        await store.put<Doc>(c, "a", { id: "a", n: 1 }, 30);
        await store.put<Doc>(c, "b", { id: "b", n: 1 }, 20);
        await store.update<Doc>(c, "a", (cur) => ({ value: { id: "a", n: cur!.n + 1 } }));
        expect(await keysOf(c)).toEqual(["b", "a"]);
        expect(await store.get(c, "a")).toEqual({ id: "a", n: 2 });
      });

      it("leaves the entry unchanged when change returns undefined", async () => {
        const c = fresh("upd-noop");
        await store.put<Doc>(c, "a", { id: "a", n: 1 }, 10);
        expect(await store.update<Doc>(c, "a", () => undefined)).toEqual({ id: "a", n: 1 });
        expect(await store.get(c, "a")).toEqual({ id: "a", n: 1 });
        expect(await keysOf(c, { from: 10, to: 11 })).toEqual(["a"]);
        expect(await store.update<Doc>(c, "absent", () => undefined)).toBeUndefined();
        expect(await store.get(c, "absent")).toBeUndefined();
        expect((await store.range(c, { offset: 0, limit: 10 })).total).toBe(1);
      });

      it("writes nothing when change throws, and propagates the error", async () => {
        const c = fresh("upd-throw");
        await store.put<Doc>(c, "a", { id: "a", n: 1 }, 10);
        const boom = (): never => {
          throw new Error("boom");
        };
        await expect(store.update<Doc>(c, "a", boom)).rejects.toThrow("boom");
        await expect(store.update<Doc>(c, "b", boom)).rejects.toThrow("boom");
        expect(await store.get(c, "a")).toEqual({ id: "a", n: 1 });
        expect(await store.get(c, "b")).toBeUndefined();
        expect(await store.range(c, { offset: 0, limit: 10 })).toEqual({ items: [{ id: "a", n: 1 }], total: 1 });
      });

      it("applies all of 20 concurrent updates of one key", async () => {
        const c = fresh("upd-race");
        const bump = (cur: Doc | undefined) => ({ value: { id: "counter", n: (cur?.n ?? 0) + 1 } });
        await Promise.all(Array.from({ length: 20 }, () => store.update<Doc>(c, "counter", bump)));
        expect(await store.get(c, "counter")).toEqual({ id: "counter", n: 20 });
      });

      if (factory.persistent) {
        it("applies concurrent updates from two store instances on the same data", async () => {
          const c = fresh("upd-race-2");
          const other = await factory.open();
          try {
            const bump = (cur: Doc | undefined) => ({ value: { id: "counter", n: (cur?.n ?? 0) + 1 } });
            await Promise.all(
              Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).update<Doc>(c, "counter", bump)),
            );
            expect(await store.get(c, "counter")).toEqual({ id: "counter", n: 20 });
          } finally {
            await other.close();
          }
        });
      }
    });

    describe("range", () => {
      it("orders by sort key, then key", async () => {
        const c = fresh("order");
        await store.put<Doc>(c, "m", { id: "m", n: 0 }, 20);
        await store.put<Doc>(c, "b", { id: "b", n: 0 }, 20);
        await store.put<Doc>(c, "z", { id: "z", n: 0 }, 10);
        await store.put<Doc>(c, "a", { id: "a", n: 0 }, 30);
        await store.put<Doc>(c, "B", { id: "B", n: 0 }, 20);
        expect(await keysOf(c)).toEqual(["z", "B", "b", "m", "a"]);
      });

      it("keeps epoch-millisecond sort keys exact", async () => {
        const c = fresh("epoch");
        const t = Date.parse("2025-06-01T12:00:00.000Z");
        await store.put<Doc>(c, "later", { id: "later", n: 0 }, t + 1);
        await store.put<Doc>(c, "now", { id: "now", n: 0 }, t);
        await store.put<Doc>(c, "earlier", { id: "earlier", n: 0 }, t - 1);
        expect(await keysOf(c, { from: t, to: t + 1 })).toEqual(["now"]);
        expect(await keysOf(c, { from: t })).toEqual(["now", "later"]);
        expect(await keysOf(c, { to: t })).toEqual(["earlier"]);
      });

      it("treats from as inclusive and to as exclusive", async () => {
        const c = fresh("bounds");
        for (const [key, sortKey] of [["a", 10], ["b", 20], ["c", 20], ["d", 30], ["e", 40]] as const) {
          await store.put<Doc>(c, key, { id: key, n: sortKey }, sortKey);
        }
        expect(await store.range<Doc>(c, { from: 20, to: 40, offset: 0, limit: 10 })).toEqual({
          items: [{ id: "b", n: 20 }, { id: "c", n: 20 }, { id: "d", n: 30 }],
          total: 3,
        });
        expect(await keysOf(c, { from: 20 })).toEqual(["b", "c", "d", "e"]);
        expect(await keysOf(c, { to: 20 })).toEqual(["a"]);
        expect(await keysOf(c, { from: 20, to: 20 })).toEqual([]);
        expect(await keysOf(c, { from: 41 })).toEqual([]);
      });

      it("applies offset and limit, while total ignores them", async () => {
        const c = fresh("paging");
        for (let i = 0; i < 10; i++) await store.put<Doc>(c, `k${i}`, { id: `k${i}`, n: i }, i);
        const page = await store.range<Doc>(c, { offset: 3, limit: 4 });
        expect(page.items.map((d) => d.id)).toEqual(["k3", "k4", "k5", "k6"]);
        expect(page.total).toBe(10);
        const bounded = await store.range<Doc>(c, { from: 2, to: 8, offset: 4, limit: 5 });
        expect(bounded).toEqual({ items: [{ id: "k6", n: 6 }, { id: "k7", n: 7 }], total: 6 });
        expect(await store.range(c, { offset: 10, limit: 5 })).toEqual({ items: [], total: 10 });
        expect(await store.range(c, { offset: 0, limit: 0 })).toEqual({ items: [], total: 10 });
      });

      it("returns an empty page for an empty or unknown collection", async () => {
        expect(await store.range(fresh("empty"), { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
        expect(await store.range(fresh("empty"), { from: 1, to: 2, offset: 5, limit: 10 })).toEqual({ items: [], total: 0 });
      });

      it("keeps collections isolated", async () => {
        const one = fresh("iso");
        const two = `${one}-x`;
        await store.put<Doc>(one, "shared", { id: "one", n: 1 }, 1);
        await store.put<Doc>(two, "shared", { id: "two", n: 2 }, 1);
        await store.put<Doc>(two, "only-two", { id: "only-two", n: 2 }, 2);
        expect(await store.get(one, "shared")).toEqual({ id: "one", n: 1 });
        expect(await store.range(one, { offset: 0, limit: 10 })).toEqual({ items: [{ id: "one", n: 1 }], total: 1 });
        expect(await store.delete(one, "shared")).toBe(true);
        expect(await store.get(two, "shared")).toEqual({ id: "two", n: 2 });
        expect((await store.range(two, { offset: 0, limit: 10 })).total).toBe(2);
        expect(await store.delete(one, "only-two")).toBe(false);
      });

      it("pages 1,000 entries with limit 7, returning each exactly once in order", async () => {
        const c = fresh("thousand");
        const ids = Array.from({ length: 1000 }, (_, i) => `id-${(i * 7919) % 1000}`);
        // Few distinct sort keys, so most page boundaries fall inside a run of ties.
        const sortKeyOf = (id: string) => Number(id.slice(3)) % 13;
        await Promise.all(ids.map((id) => store.put<Doc>(c, id, { id, n: sortKeyOf(id) }, sortKeyOf(id))));
        const expected = [...ids].sort((a, b) => sortKeyOf(a) - sortKeyOf(b) || (a < b ? -1 : a > b ? 1 : 0));

        const seen: string[] = [];
        for (let offset = 0; ; offset += 7) {
          const page = await store.range<Doc>(c, { offset, limit: 7 });
          expect(page.total).toBe(1000);
          if (page.items.length === 0) break;
          expect(page.items.length).toBe(Math.min(7, 1000 - offset));
          seen.push(...page.items.map((d) => d.id));
        }
        expect(seen).toHaveLength(1000);
        expect(new Set(seen).size).toBe(1000);
        expect(seen).toEqual(expected);
      });
    });

    describe("pages at any offset (maintained counts, pages through the index)", () => {
      const pageIds = async (c: string, offset: number, limit: number, query: { from?: number; to?: number } = {}) => {
        const page = await store.range<Doc>(c, { ...query, offset, limit });
        return { ids: page.items.map((d) => d.id), total: page.total };
      };
      const expectedOf = (entries: Map<string, number>) =>
        [...entries].sort(([a, x], [b, y]) => x - y || (a < b ? -1 : a > b ? 1 : 0)).map(([id]) => id);

      it("serves every offset of a 1,500-entry collection, front, middle and back, with and without bounds", async () => {
        const c = fresh("offsets");
        const entries = new Map<string, number>();
        for (let i = 0; i < 1500; i++) entries.set(`k${String((i * 7919) % 1500).padStart(4, "0")}`, i % 37);
        await store.batch(() => Promise.all([...entries].map(([id, sortKey]) => store.put<Doc>(c, id, { id, n: sortKey }, sortKey))));
        const all = expectedOf(entries);
        for (const offset of [0, 1, 255, 256, 257, 300, 511, 512, 700, 749, 750, 751, 1000, 1449, 1450, 1499, 1500, 1600]) {
          expect(await pageIds(c, offset, 50)).toEqual({ ids: all.slice(offset, offset + 50), total: 1500 });
        }
        const bounded = [...entries].filter(([, k]) => k >= 5 && k < 30);
        const inRange = expectedOf(new Map(bounded));
        for (const offset of [0, 10, 500, inRange.length - 50, inRange.length - 1, inRange.length]) {
          expect(await pageIds(c, offset, 50, { from: 5, to: 30 })).toEqual({ ids: inRange.slice(offset, offset + 50), total: inRange.length });
        }
      });

      it("keeps counts and positions exact through inserts, re-sorts, updates and deletes", async () => {
        const c = fresh("moving");
        const entries = new Map<string, number>();
        for (let i = 0; i < 800; i++) entries.set(`k${String(i).padStart(3, "0")}`, i);
        await store.batch(() => Promise.all([...entries].map(([id, sortKey]) => store.put<Doc>(c, id, { id, n: sortKey }, sortKey))));
        const check = async () => {
          const all = expectedOf(entries);
          for (const offset of [0, 260, 300, 390, 600, all.length - 10]) expect(await pageIds(c, offset, 20)).toEqual({ ids: all.slice(offset, offset + 20), total: all.length });
        };
        await check();
        // removed before the remembered positions
        for (const id of ["k000", "k001", "k100", "k299"]) {
          expect(await store.delete(c, id)).toBe(true);
          entries.delete(id);
        }
        await check();
        // moved from the front to the back and back again; an overwrite in place changes nothing
        await store.put<Doc>(c, "k010", { id: "k010", n: 5000 }, 5000);
        entries.set("k010", 5000);
        await store.update<Doc>(c, "k900", () => ({ value: { id: "k900", n: -1 }, sortKey: -1 }));
        entries.set("k900", -1);
        await store.put<Doc>(c, "k500", { id: "k500", n: 0 });
        await check();
        expect(await store.putIfAbsent<Doc>(c, "k500", { id: "k500", n: 1 }, 1)).toBe(false);
        expect(await store.putIfAbsent<Doc>(c, "k901", { id: "k901", n: 2 }, 2)).toBe(true);
        entries.set("k901", 2);
        await check();
        if (factory.persistent) {
          // another instance's writes move positions too
          const other = await factory.open();
          try {
            await other.delete(c, "k002");
            entries.delete("k002");
            await other.put<Doc>(c, "k003", { id: "k003", n: 9000 }, 9000);
            entries.set("k003", 9000);
          } finally {
            await other.close();
          }
          await check();
        }
      });
    });

    describe("putAll", () => {
      it("writes every entry in order, a later one with the same key winning, across chunks, with counts and positions exact", async () => {
        const c = fresh("put-all");
        await store.put<Doc>(c, "k0003", { id: "k0003", n: -1 }, 5000);
        await store.put<Doc>(c, "other", { id: "other", n: 0 }, 700);
        const entries = Array.from({ length: 1100 }, (_, i) => ({ key: `k${String(i).padStart(4, "0")}`, value: { id: `k${String(i).padStart(4, "0")}`, n: i }, sortKey: i }));
        // the same key again, far enough on to fall in another statement or script than its first entry
        entries[1050] = { key: "k0005", value: { id: "k0005", n: 99 }, sortKey: 2000 };
        await store.putAll<Doc>(c, entries);
        expect(await store.get(c, "k0005")).toEqual({ id: "k0005", n: 99 });
        expect(await store.get(c, "k0003")).toEqual({ id: "k0003", n: 3 });
        const expected = [...entries.filter((e) => e.key !== "k0005" || e.sortKey === 2000).map((e) => [e.key, e.sortKey] as const), ["other", 700] as const]
          .sort(([a, x], [b, y]) => x - y || (a < b ? -1 : 1))
          .map(([key]) => key);
        const page = await store.range<Doc>(c, { offset: 0, limit: 2000 });
        expect(page.total).toBe(1100);
        expect(page.items.map((d) => d.id)).toEqual(expected);
        expect((await store.range<Doc>(c, { offset: 600, limit: 3 })).items.map((d) => d.id)).toEqual(expected.slice(600, 603));
      });

      it("writes nothing when a value cannot be stored, and joins a batch", async () => {
        const c = fresh("put-all-bad");
        await expect(store.putAll<Doc>(c, [{ key: "a", value: { id: "a", n: 1 }, sortKey: 1 }, { key: "b", value: undefined as unknown as Doc, sortKey: 2 }])).rejects.toThrow(TypeError);
        await store.putAll<Doc>(c, []);
        expect(await store.range(c, { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
        await store.batch(async () => {
          await store.putAll<Doc>(c, [{ key: "a", value: { id: "a", n: 1 }, sortKey: 1 }]);
          expect(await store.get(c, "a")).toEqual({ id: "a", n: 1 });
        });
        expect((await store.range(c, { offset: 0, limit: 10 })).total).toBe(1);
      });
    });

    describe("batch", () => {
      it("makes every write of the work visible, and the work's answer its own", async () => {
        const c = fresh("batch");
        const answer = await store.batch(async () => {
          await Promise.all(Array.from({ length: 50 }, (_, i) => store.put<Doc>(c, `k${i}`, { id: `k${i}`, n: i }, i)));
          await store.update<Doc>(c, "k0", (cur) => ({ value: { id: "k0", n: cur!.n + 100 } }));
          expect(await store.get(c, "k0")).toEqual({ id: "k0", n: 100 });
          await store.delete(c, "k49");
          return "done";
        });
        expect(answer).toBe("done");
        expect((await store.range(c, { offset: 0, limit: 100 })).total).toBe(49);
        expect(await store.get(c, "k0")).toEqual({ id: "k0", n: 100 });
      });

      it("keeps what was written before the work failed, and rejects with its error; a failed update inside writes nothing", async () => {
        const c = fresh("batch-fail");
        await expect(
          store.batch(async () => {
            await store.put<Doc>(c, "a", { id: "a", n: 1 }, 1);
            await expect(store.update<Doc>(c, "a", () => {
              throw new Error("no");
            })).rejects.toThrow("no");
            await store.put<Doc>(c, "b", { id: "b", n: 2 }, 2);
            throw new Error("half-way");
          }),
        ).rejects.toThrow("half-way");
        expect(await store.range(c, { offset: 0, limit: 10 })).toEqual({ items: [{ id: "a", n: 1 }, { id: "b", n: 2 }], total: 2 });
      });

      it("lets writes from outside the batch, and batches side by side, all land", async () => {
        const c = fresh("batch-side");
        const outside = Promise.all(Array.from({ length: 20 }, (_, i) => store.put<Doc>(c, `out${i}`, { id: `out${i}`, n: i }, i)));
        const batches = [0, 1, 2].map((b) =>
          store.batch(async () => {
            for (let i = 0; i < 10; i++) await store.put<Doc>(c, `b${b}-${i}`, { id: `b${b}-${i}`, n: i }, i);
            // a batch within a batch joins it
            await store.batch(() => store.put<Doc>(c, `b${b}-nested`, { id: `b${b}-nested`, n: 0 }, 0));
          }),
        );
        await Promise.all([outside, ...batches]);
        expect((await store.range(c, { offset: 0, limit: 100 })).total).toBe(20 + 3 * 11);
      });
    });

    describe("locks", () => {
      it("is held by one owner at a time; re-acquiring by the holder succeeds", async () => {
        const lock = fresh("lock");
        expect(await store.acquireLock(lock, "A", 10_000)).toBe(true);
        expect(await store.acquireLock(lock, "B", 10_000)).toBe(false);
        expect(await store.acquireLock(lock, "A", 10_000)).toBe(true);
        expect(await store.acquireLock(fresh("other-lock"), "B", 10_000)).toBe(true);
      });

      it("lets another owner in after expiry", async () => {
        const lock = fresh("lock-expiry");
        expect(await store.acquireLock(lock, "A", 50)).toBe(true);
        expect(await store.acquireLock(lock, "B", 50)).toBe(false);
        await sleep(120);
        expect(await store.acquireLock(lock, "B", 10_000)).toBe(true);
        expect(await store.renewLock(lock, "A", 10_000)).toBe(false);
        expect(await store.acquireLock(lock, "A", 10_000)).toBe(false);
      });

      it("renews only for the holder, extending the expiry", async () => {
        const lock = fresh("lock-renew");
        expect(await store.acquireLock(lock, "A", 100)).toBe(true);
        expect(await store.renewLock(lock, "B", 10_000)).toBe(false);
        expect(await store.renewLock(lock, "A", 10_000)).toBe(true);
        await sleep(200);
        expect(await store.acquireLock(lock, "B", 10_000)).toBe(false);
        expect(await store.renewLock(fresh("never-taken"), "A", 10_000)).toBe(false);
      });

      it("is released only by its owner", async () => {
        const lock = fresh("lock-release");
        expect(await store.acquireLock(lock, "A", 10_000)).toBe(true);
        await store.releaseLock(lock, "B");
        expect(await store.acquireLock(lock, "B", 10_000)).toBe(false);
        await store.releaseLock(lock, "A");
        expect(await store.renewLock(lock, "A", 10_000)).toBe(false);
        expect(await store.acquireLock(lock, "B", 10_000)).toBe(true);
        await store.releaseLock(fresh("never-taken"), "A");
      });
    });

    if (factory.persistent) {
      it("keeps entries and locks across close and reopen", async () => {
        const c = fresh("persist");
        const lock = fresh("persist-lock");
        const first = await factory.open();
        await first.put<Doc>(c, "a", { id: "a", n: 1 }, 2);
        await first.put<Doc>(c, "b", { id: "b", n: 2 }, 1);
        expect(await first.acquireLock(lock, "A", 60_000)).toBe(true);
        await first.close();

        const second = await factory.open();
        try {
          expect(await second.get(c, "a")).toEqual({ id: "a", n: 1 });
          expect(await second.range<Doc>(c, { offset: 0, limit: 10 })).toEqual({
            items: [{ id: "b", n: 2 }, { id: "a", n: 1 }],
            total: 2,
          });
          expect(await second.acquireLock(lock, "B", 60_000)).toBe(false);
        } finally {
          await second.close();
        }
      });
    }
  });
}

const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "store-contract-"));
afterAll(() => fs.rmSync(tmpDir, { recursive: true, force: true }));

describeStoreContract("SqliteStore (file)", {
  // A not-yet-existing subdirectory also checks that open() creates it.
  open: async () => SqliteStore.open(path.join(tmpDir, "nested", "dir", "state.db")),
  persistent: true,
});

describeStoreContract("SqliteStore (:memory:)", {
  open: async () => SqliteStore.open(":memory:"),
  persistent: false,
});

describe("SqliteStore on a file written before counts were kept", () => {
  it("counts what is already stored when it opens it, and keeps counting", async () => {
    const file = path.join(tmpDir, "older.db");
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require("libsql");
    const old = new Database(file);
    old.exec(`CREATE TABLE entries (collection TEXT NOT NULL, key TEXT NOT NULL, sort_key INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (collection, key));
      CREATE INDEX entries_by_sort ON entries (collection, sort_key, key);`);
    const insert = old.prepare("INSERT INTO entries VALUES (?, ?, ?, ?)");
    for (let i = 0; i < 300; i++) insert.run("older", `k${String(i).padStart(3, "0")}`, i, JSON.stringify({ id: `k${i}`, n: i }));
    insert.run("other", "x", 0, "1");
    old.close();
    const store = SqliteStore.open(file);
    try {
      expect((await store.range("older", { offset: 0, limit: 1 })).total).toBe(300);
      expect((await store.range("other", { offset: 0, limit: 1 })).total).toBe(1);
      await store.put("older", "new", { id: "new", n: 0 }, 1000);
      const last = await store.range<Doc>("older", { offset: 300, limit: 5 });
      expect(last).toEqual({ items: [{ id: "new", n: 0 }], total: 301 });
    } finally {
      await store.close();
    }
  });
});

/**
 * Issue #11: the writes and batches issued in one turn share one commit (a serial outbox enqueue joins the
 * worker's claims and removals instead of committing alone); each keeps its own outcome, and nothing outside
 * the group sees or joins it before it is committed.
 */
describe("SqliteStore group commit", () => {
  const countCommits = (store: SqliteStore) => {
    const commit = (store as unknown as { stmt(sql: string): { run(...a: unknown[]): unknown } }).stmt("COMMIT");
    const run = commit.run.bind(commit);
    const counted = { commits: 0 };
    commit.run = (...a: unknown[]) => {
      counted.commits++;
      return run(...a);
    };
    return counted;
  };

  it("commits the writes and batches of one turn together, each with its own outcome", async () => {
    const store = SqliteStore.open(path.join(tmpDir, "group.db"));
    try {
      await store.put<Doc>("g", "a", { id: "a", n: 0 }, 0);
      const counted = countCommits(store);
      const outcomes = await Promise.allSettled([
        store.put<Doc>("g", "a", { id: "a", n: 1 }, 1),
        store.batch(async () => {
          await store.put<Doc>("g", "b", { id: "b", n: 2 }, 2);
          await store.put<Doc>("g", "c", { id: "c", n: 3 }, 3);
          return "batch";
        }),
        store.update<Doc>("g", "a", () => {
          throw new Error("refused");
        }),
        store.batch(async () => {
          await store.put<Doc>("g", "d", { id: "d", n: 4 }, 4);
          throw new Error("half-way");
        }),
        store.delete("g", "nothing"),
      ]);
      expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : (o.reason as Error).message))).toEqual([undefined, "batch", "refused", "half-way", false]);
      expect(counted.commits).toBe(1);
      expect((await store.range<Doc>("g", { offset: 0, limit: 10 })).items).toEqual([
        { id: "a", n: 1 },
        { id: "b", n: 2 },
        { id: "c", n: 3 },
        { id: "d", n: 4 },
      ]);
    } finally {
      await store.close();
    }
  });

  it("keeps a write from outside a batch under way waiting, and another connection from seeing the batch, until it is committed", async () => {
    const file = path.join(tmpDir, "group-isolation.db");
    const store = SqliteStore.open(file);
    const other = SqliteStore.open(file);
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const batch = store.batch(async () => {
        await store.put<Doc>("iso", "in", { id: "in", n: 1 }, 1);
        await gate;
      });
      await sleep(20);
      let outsideDone = false;
      const outside = store.put<Doc>("iso", "out", { id: "out", n: 2 }, 2).then(() => (outsideDone = true));
      await sleep(20);
      expect(outsideDone).toBe(false);
      expect(await other.get("iso", "in")).toBeUndefined();
      release();
      await batch;
      await outside;
      expect(await other.get("iso", "in")).toEqual({ id: "in", n: 1 });
      expect(await other.get("iso", "out")).toEqual({ id: "out", n: 2 });
    } finally {
      await store.close();
      await other.close();
    }
  });
});

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) throw new Error("REDIS_URL is not set; test/support/redis.global-setup.ts should have set it");
const redisPrefix = `test:store-contract:${randomUUID()}:`;

describeStoreContract("RedisStore", {
  open: () => RedisStore.connect({ target: { url: redisUrl }, keyPrefix: redisPrefix }),
  persistent: true,
});

// A 3-master, 3-replica cluster of its own, started when the suite first opens a store: every write
// there also waits for a replica (WAIT 1), and every script must keep to one slot.
let cluster: Promise<RedisCluster> | undefined;
describeStoreContract("RedisStore on a Redis Cluster", {
  open: async () => RedisStore.connect({ target: { nodes: (await (cluster ??= startRedisCluster())).urls.slice(0, 2) }, keyPrefix: "contract:" }),
  persistent: true,
});
afterAll(async () => (await cluster)?.stop(), 30_000);

// When REDIS_URL points at a shared server, leave nothing of ours behind.
afterAll(async () => {
  const redis = new Redis(redisUrl);
  try {
    const keys: string[] = [];
    const stream = redis.scanStream({ match: `${redisPrefix}*`, count: 500 });
    for await (const batch of stream) keys.push(...(batch as string[]));
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  } finally {
    await redis.quit();
  }
});
