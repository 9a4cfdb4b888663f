/** The Store contract's rules for the lists of keys (Store.keyLists): order, bounds, pages, counts, a key's kept place, persistence. */
import type { Store } from "../../../core/contract/store";
import type { ContractContext } from "./context";

export function keyListRules({ store: storeOf, factory, fresh }: ContractContext): void {
  let store: Store;
  beforeAll(() => {
    store = storeOf();
  });
  const all = async (list: string, query: { from?: number; to?: number } = {}) => (await store.keyLists.range(list, { ...query, offset: 0, limit: 1000 })).items;

  describe("keyLists", () => {
    it("orders a list's keys by sort key, then key, each list apart from the others and from a collection of its name", async () => {
      const list = fresh("klist");
      const other = fresh("klist");
      await store.put(list, "entry", { id: "entry", n: 0 }, 0);
      await store.keyLists.add([
        { list, key: "m", sortKey: 20 },
        { list: other, key: "x", sortKey: 1 },
        { list, key: "b", sortKey: 20 },
        { list, key: "z", sortKey: 10 },
        { list, key: "a", sortKey: 30 },
        { list, key: "B", sortKey: 20 },
      ]);
      expect(await all(list)).toEqual(["z", "B", "b", "m", "a"]);
      expect(await store.keyLists.range(other, { offset: 0, limit: 10 })).toEqual({ items: ["x"], total: 1 });
      expect(await store.range(list, { offset: 0, limit: 10 })).toEqual({ items: [{ id: "entry", n: 0 }], total: 1 });
      expect(await store.keyLists.range(fresh("klist-none"), { offset: 0, limit: 10 })).toEqual({ items: [], total: 0 });
    });

    it("keeps a listed key where it is when it is listed again, and counts it once (no keys: nothing written)", async () => {
      const list = fresh("klist-again");
      await store.keyLists.add([{ list, key: "a", sortKey: 10 }, { list, key: "b", sortKey: 20 }]);
      await store.keyLists.add([{ list, key: "a", sortKey: 30 }, { list, key: "c", sortKey: 5 }, { list, key: "c", sortKey: 40 }]);
      await store.keyLists.add([]);
      expect(await store.keyLists.range(list, { offset: 0, limit: 10 })).toEqual({ items: ["c", "a", "b"], total: 3 });
      expect(await all(list, { from: 30 })).toEqual([]);
    });

    it("treats from as inclusive and to as exclusive, counting the range; offset and limit page it, total ignores them", async () => {
      const list = fresh("klist-bounds");
      const t = Date.parse("2025-06-01T12:00:00.000Z");
      await store.keyLists.add(Array.from({ length: 10 }, (_, i) => ({ list, key: `k${i}`, sortKey: t + i })));
      expect(await store.keyLists.range(list, { from: t + 2, to: t + 8, offset: 4, limit: 5 })).toEqual({ items: ["k6", "k7"], total: 6 });
      expect(await all(list, { from: t + 9 })).toEqual(["k9"]);
      expect(await all(list, { to: t + 1 })).toEqual(["k0"]);
      expect(await all(list, { from: t + 3, to: t + 3 })).toEqual([]);
      expect(await store.keyLists.range(list, { offset: 3, limit: 4 })).toEqual({ items: ["k3", "k4", "k5", "k6"], total: 10 });
      expect(await store.keyLists.range(list, { offset: 10, limit: 5 })).toEqual({ items: [], total: 10 });
      expect(await store.keyLists.range(list, { offset: 0, limit: 0 })).toEqual({ items: [], total: 10 });
    });

    it("pages a long list the same from either end, in one call of more keys than a command takes", async () => {
      const list = fresh("klist-long");
      const keys = Array.from({ length: 1200 }, (_, i) => `k${String(i).padStart(4, "0")}`);
      await store.keyLists.add(keys.map((key, i) => ({ list, key, sortKey: Math.floor(i / 3) })).reverse());
      const pages: string[] = [];
      for (let offset = 0; offset < keys.length; offset += 100) {
        const page = await store.keyLists.range(list, { offset, limit: 100 });
        expect(page.total).toBe(1200);
        pages.push(...page.items);
      }
      expect(pages).toEqual(keys);
      expect((await store.keyLists.range(list, { offset: 1150, limit: 100 })).items).toEqual(keys.slice(1150));
    });

    it("writes inside a batch with the batch's other writes", async () => {
      const list = fresh("klist-batch");
      const c = fresh("klist-batch-entries");
      await store.batch(async () => {
        await store.keyLists.add([{ list, key: "a", sortKey: 1 }]);
        await store.put(c, "a", { id: "a", n: 1 }, 1);
      });
      expect(await all(list)).toEqual(["a"]);
      expect(await store.get(c, "a")).toEqual({ id: "a", n: 1 });
    });

    if (factory.persistent)
      it("keeps the lists across a reopen", async () => {
        const list = fresh("klist-kept");
        await store.keyLists.add([{ list, key: "a", sortKey: 1 }, { list, key: "b", sortKey: 2 }]);
        const reopened = await factory.open();
        try {
          expect(await reopened.keyLists.range(list, { offset: 0, limit: 10 })).toEqual({ items: ["a", "b"], total: 2 });
        } finally {
          await reopened.close();
        }
      });
  });
}
