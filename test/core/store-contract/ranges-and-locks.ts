/** The Store contract's rules for ordered reads and locks: range, pages at any offset, locks, and what a persistent store keeps. */
import type { Store } from "../../../core/contract/store";
import { sleep, type ContractContext, type Doc } from "./context";

/** A lock that expires during the test: long enough that the calls right after taking it come before it expires, under load too. */
const LOCK_TTL_MS = 1000;

export function rangeAndLockRules({ store: storeOf, factory, fresh, keysOf }: ContractContext): void {
  let store: Store;
  beforeAll(() => {
    store = storeOf();
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

    it("answers the JSON text of each value written with rangeJson: the page range parses, unparsed", async () => {
      const c = fresh("json");
      const values = [
        { id: "k0", n: 0, text: "Straße \u00e9 \u2603 \"quoted\"" },
        { id: "k1", n: 1, nested: { a: [1, 2.5, null], b: true } },
        { id: "k2", n: 2 },
        { id: "k3", n: 3 },
      ];
      for (const value of values) await store.put(c, value.id, value, value.n);
      await store.update<Doc & { extra?: string }>(c, "k2", (current) => ({ value: { ...current!, extra: "x" } }));
      const written = [values[0], values[1], { ...values[2], extra: "x" }, values[3]].map((v) => JSON.stringify(v));
      const array = (texts: string[]) => `[${texts.join(",")}]`;
      expect(await store.rangeJson(c, { offset: 0, limit: 10 })).toEqual({ json: array(written), count: 4, total: 4 });
      expect(await store.rangeJson(c, { from: 1, to: 3, offset: 1, limit: 10 })).toEqual({ json: array([written[2]]), count: 1, total: 2 });
      expect(await store.rangeJson(c, { offset: 3, limit: 10 })).toEqual({ json: array([written[3]]), count: 1, total: 4 });
      expect(await store.rangeJson(c, { offset: 0, limit: 0 })).toEqual({ json: "[]", count: 0, total: 4 });
      expect(await store.rangeJson(fresh("json-empty"), { offset: 0, limit: 10 })).toEqual({ json: "[]", count: 0, total: 0 });
      // front, remembered positions and back of a larger collection: the same entries, in the same order, as range
      const big = fresh("json-big");
      await store.batch(() => Promise.all(Array.from({ length: 700 }, (_, i) => store.put<Doc>(big, `k${(i * 337) % 700}`, { id: `k${i}`, n: i % 41 }, i % 41))));
      for (const offset of [0, 100, 300, 520, 680])
        expect(JSON.parse((await store.rangeJson(big, { offset, limit: 30 })).json)).toEqual((await store.range(big, { offset, limit: 30 })).items);
    });

    it("pages bounds that hold every entry, or all but the first or last, exactly", async () => {
      const c = fresh("holding");
      for (let i = 0; i < 600; i++) await store.put<Doc>(c, `k${String(i).padStart(3, "0")}`, { id: `k${i}`, n: i }, 100 + (i % 300));
      const all = (await store.range<Doc>(c, { offset: 0, limit: 600 })).items;
      for (const [bounds, expected] of [
        [{ from: 0 }, all],
        [{ from: 100, to: 400 }, all],
        [{ from: 101 }, all.filter((d) => d.n % 300 !== 0)],
        [{ from: 100, to: 399 }, all.filter((d) => d.n % 300 !== 299)],
      ] as const)
        for (const offset of [0, 260, expected.length - 50])
          expect(await store.range<Doc>(c, { ...bounds, offset, limit: 50 })).toEqual({ items: expected.slice(offset, offset + 50), total: expected.length });
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
      // a TTL that outlasts the next call even on a loaded machine (50 ms did not, under a full shuffled run)
      expect(await store.acquireLock(lock, "A", LOCK_TTL_MS)).toBe(true);
      expect(await store.acquireLock(lock, "B", LOCK_TTL_MS)).toBe(false);
      await sleep(LOCK_TTL_MS + 200);
      expect(await store.acquireLock(lock, "B", 10_000)).toBe(true);
      expect(await store.renewLock(lock, "A", 10_000)).toBe(false);
      expect(await store.acquireLock(lock, "A", 10_000)).toBe(false);
    });

    it("renews only for the holder, extending the expiry", async () => {
      const lock = fresh("lock-renew");
      expect(await store.acquireLock(lock, "A", LOCK_TTL_MS)).toBe(true);
      expect(await store.renewLock(lock, "B", 10_000)).toBe(false);
      expect(await store.renewLock(lock, "A", 10_000)).toBe(true);
      await sleep(LOCK_TTL_MS + 200);
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
}
