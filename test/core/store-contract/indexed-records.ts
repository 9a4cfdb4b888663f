/** The Store contract's rules for the indexed records (Store.indexedRecords): indexes, order, bounds, pages, counts, add (a record kept as first written) and put (replaced), persistence. */
import type { IndexedQuery, IndexedRecord, RecordIndexes, Store } from "../../../core/contract/store";
import type { ContractContext } from "./context";

interface Audit {
  id: string;
  verdict: string;
}

const INDEXES: RecordIndexes = [["partner"], ["partner", "verdict"], ["verdict"]];
const record = (key: string, sortKey: number, fields: Record<string, string>): IndexedRecord<Audit> => ({ key, sortKey, fields, value: { id: key, verdict: fields.verdict ?? "none" } });

export function indexedRecordRules({ store: storeOf, factory, fresh }: ContractContext): void {
  let store: Store;
  beforeAll(() => {
    store = storeOf();
  });
  const page = (collection: string, query: Partial<IndexedQuery> = {}) => store.indexedRecords.range<Audit>(collection, INDEXES, { offset: 0, limit: 1000, ...query });
  const ids = async (collection: string, query: Partial<IndexedQuery> = {}) => (await page(collection, query)).items.map((a) => a.id);

  describe("indexedRecords", () => {
    it("selects records by each index, ordered by sort key then key, apart from a collection of the same name; a record without a field is in no index naming it", async () => {
      const c = fresh("irec");
      await store.put(c, "entry", { id: "entry", n: 0 }, 0);
      await store.indexedRecords.add(c, INDEXES, [
        record("m", 20, { partner: "p1", verdict: "match" }),
        record("b", 20, { partner: "p2", verdict: "mismatch" }),
        record("z", 10, { partner: "p1", verdict: "mismatch" }),
        record("a", 30, { verdict: "match" }),
        record("B", 20, { partner: "p1", verdict: "match" }),
      ]);
      expect(await ids(c)).toEqual(["z", "B", "b", "m", "a"]);
      expect(await ids(c, { where: { partner: "p1" } })).toEqual(["z", "B", "m"]);
      expect(await ids(c, { where: { verdict: "match", partner: "p1" } })).toEqual(["B", "m"]);
      expect(await page(c, { where: { verdict: "match" } })).toEqual({ items: [{ id: "B", verdict: "match" }, { id: "m", verdict: "match" }, { id: "a", verdict: "match" }], total: 3 });
      expect(await page(c, { where: { partner: "p3" } })).toEqual({ items: [], total: 0 });
      expect(await page(fresh("irec-none"))).toEqual({ items: [], total: 0 });
      expect(await store.indexedRecords.get(c, "b")).toEqual({ id: "b", verdict: "mismatch" });
      expect(await store.indexedRecords.get(c, "entry")).toBeUndefined();
      expect(await store.range(c, { offset: 0, limit: 10 })).toEqual({ items: [{ id: "entry", n: 0 }], total: 1 });
    });

    it("keeps a record as first written by add: adding its key again, in the same call or a later one, writes nothing and counts nothing", async () => {
      const c = fresh("irec-again");
      expect(await store.indexedRecords.add(c, INDEXES, [record("a", 10, { partner: "p1", verdict: "match" }), record("a", 5, { partner: "p2", verdict: "mismatch" })])).toBe(1);
      await store.indexedRecords.add(c, INDEXES, [record("a", 40, { partner: "p2", verdict: "mismatch" }), record("c", 5, { partner: "p1", verdict: "mismatch" })]);
      await store.indexedRecords.add(c, INDEXES, []);
      expect(await page(c)).toEqual({ items: [{ id: "c", verdict: "mismatch" }, { id: "a", verdict: "match" }], total: 2 });
      expect(await page(c, { where: { partner: "p2" } })).toEqual({ items: [], total: 0 });
      expect((await page(c, { where: { partner: "p1" } })).total).toBe(2);
      expect((await page(c, { where: { verdict: "mismatch" } })).total).toBe(1);
    });

    it("replaces records by put (value, sort key and indexes, the last of a key winning), counting each once; add answers how many it wrote", async () => {
      const c = fresh("irec-put");
      expect(await store.indexedRecords.add(c, INDEXES, [record("a", 10, { partner: "p1", verdict: "match" }), record("b", 20, { partner: "p1", verdict: "mismatch" })])).toBe(2);
      expect(await store.indexedRecords.add(c, INDEXES, [record("a", 30, { partner: "p2", verdict: "match" })])).toBe(0);
      await store.indexedRecords.put(c, INDEXES, [record("a", 30, { partner: "p2", verdict: "mismatch" }), record("c", 5, {}), record("a", 40, { partner: "p2", verdict: "match" })]);
      expect(await page(c)).toEqual({ items: [{ id: "c", verdict: "none" }, { id: "b", verdict: "mismatch" }, { id: "a", verdict: "match" }], total: 3 });
      expect(await page(c, { where: { partner: "p1" } })).toEqual({ items: [{ id: "b", verdict: "mismatch" }], total: 1 });
      expect(await page(c, { where: { partner: "p2", verdict: "match" } })).toEqual({ items: [{ id: "a", verdict: "match" }], total: 1 });
      expect((await page(c, { where: { verdict: "mismatch" } })).total).toBe(1);
      await store.indexedRecords.put(c, INDEXES, [record("c", 1, { partner: "p1", verdict: "match" })]);
      await store.indexedRecords.put(c, INDEXES, [{ ...record("a", 50, {}), value: { id: "a", verdict: "replaced" } }]);
      expect(await page(c, { where: { partner: "p1" } })).toEqual({ items: [{ id: "c", verdict: "match" }, { id: "b", verdict: "mismatch" }], total: 2 });
      expect(await page(c, { where: { partner: "p2" } })).toEqual({ items: [], total: 0 });
      expect(await page(c, { where: { verdict: "match" } })).toEqual({ items: [{ id: "c", verdict: "match" }], total: 1 });
      expect(await page(c, { from: 40 })).toEqual({ items: [{ id: "a", verdict: "replaced" }], total: 1 });
      expect((await page(c)).total).toBe(3);
    });

    it("counts a put over records written without index values (a queue's) beside keys not written yet, and one over a mix of both kinds", async () => {
      const c = fresh("irec-queued");
      const queued = Array.from({ length: 70 }, (_, i) => record(`q${String(i).padStart(2, "0")}`, -100 + i, {}));
      expect(await store.indexedRecords.add(c, INDEXES, queued)).toBe(70);
      await store.indexedRecords.put(c, INDEXES, [...queued.map((q, i) => record(q.key, i, { partner: "p1", verdict: i % 7 ? "match" : "mismatch" })), record("new", 100, { partner: "p2", verdict: "match" })]);
      expect((await page(c)).total).toBe(71);
      expect((await page(c, { where: { partner: "p1" } })).total).toBe(70);
      expect((await page(c, { where: { partner: "p1", verdict: "mismatch" } })).total).toBe(10);
      expect((await page(c, { where: { verdict: "match" } })).total).toBe(61);
      expect((await page(c, { to: 0 })).total).toBe(0);
      await store.indexedRecords.add(c, INDEXES, [record("late", -1, {})]);
      await store.indexedRecords.put(c, INDEXES, [record("late", 200, { partner: "p2", verdict: "mismatch" }), record("q00", 201, { partner: "p2", verdict: "match" })]);
      expect((await page(c)).total).toBe(72);
      expect((await page(c, { where: { partner: "p1" } })).total).toBe(69);
      expect(await ids(c, { where: { partner: "p2" } })).toEqual(["new", "late", "q00"]);
      expect((await page(c, { where: { verdict: "mismatch" } })).total).toBe(10);
    });

    it("keeps each record in the index sets of its last value while two writers move the same records between sets at once", async () => {
      const c = fresh("irec-concurrent");
      const other = factory.persistent ? await factory.open() : store;
      try {
        const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
        // the value's verdict names the partner it was written with: the one set it must be in at the end
        const moved = (round: number, writer: string) => keys.map((key) => ({ ...record(key, round, { partner: `${writer}${round % 3}` }), value: { id: key, verdict: `${writer}${round % 3}` } }));
        for (let round = 0; round < 8; round++) await Promise.all([store.indexedRecords.put(c, INDEXES, moved(round, "a")), other.indexedRecords.put(c, INDEXES, moved(round + 1, "b"))]);
        const last = await page(c);
        expect(last.total).toBe(keys.length);
        for (const partner of ["a0", "a1", "a2", "b0", "b1", "b2"])
          expect(await ids(c, { where: { partner } })).toEqual(last.items.filter((a) => a.verdict === partner).map((a) => a.id));
      } finally {
        if (other !== store) await other.close();
      }
    });

    it("treats from as inclusive and to as exclusive, counting the range; offset and limit page it, total ignores them", async () => {
      const c = fresh("irec-bounds");
      const t = Date.parse("2025-06-01T12:00:00.000Z");
      await store.indexedRecords.add(c, INDEXES, Array.from({ length: 10 }, (_, i) => record(`k${i}`, t + i, { partner: "p", verdict: i % 2 ? "match" : "mismatch" })));
      expect(await ids(c, { from: t + 2, to: t + 8, offset: 4, limit: 5 })).toEqual(["k6", "k7"]);
      expect((await page(c, { from: t + 2, to: t + 8, offset: 4, limit: 5 })).total).toBe(6);
      expect(await page(c, { where: { partner: "p", verdict: "match" }, from: t + 4, offset: 1, limit: 1 })).toEqual({ items: [{ id: "k7", verdict: "match" }], total: 3 });
      expect(await ids(c, { to: t + 1 })).toEqual(["k0"]);
      expect(await ids(c, { from: t + 3, to: t + 3 })).toEqual([]);
      expect(await page(c, { where: { verdict: "mismatch" }, offset: 3, limit: 4 })).toEqual({ items: [{ id: "k6", verdict: "mismatch" }, { id: "k8", verdict: "mismatch" }], total: 5 });
      expect(await page(c, { offset: 10, limit: 5 })).toEqual({ items: [], total: 10 });
      expect(await page(c, { where: { partner: "p" }, offset: 0, limit: 0 })).toEqual({ items: [], total: 10 });
    });

    it("pages a long selection the same from either end, added in one call of more records than a command takes", async () => {
      const c = fresh("irec-long");
      const keys = Array.from({ length: 1200 }, (_, i) => `k${String(i).padStart(4, "0")}`);
      await store.indexedRecords.add(c, INDEXES, keys.map((key, i) => record(key, Math.floor(i / 3), { partner: "p", verdict: "match" })).reverse());
      for (const where of [undefined, { partner: "p" }, { partner: "p", verdict: "match" }] as (Record<string, string> | undefined)[]) {
        const pages: string[] = [];
        for (let offset = 0; offset < keys.length; offset += 100) {
          const found = await page(c, { where, offset, limit: 100 });
          expect(found.total).toBe(1200);
          pages.push(...found.items.map((a) => a.id));
        }
        expect(pages).toEqual(keys);
      }
      expect(await ids(c, { where: { verdict: "match" }, offset: 1150, limit: 100 })).toEqual(keys.slice(1150));
    });

    it("refuses a query no index selects by, and more than three indexes", async () => {
      const c = fresh("irec-refused");
      await expect(page(c, { where: { direction: "sent" } })).rejects.toThrow("no index selects by direction");
      await expect(page(c, { where: { verdict: "match", direction: "sent" } })).rejects.toThrow("no index selects by");
      await expect(store.indexedRecords.add(c, [["a"], ["b"], ["c"], ["d"]], [record("a", 1, {})])).rejects.toThrow("at most 3 indexes");
    });

    it("writes inside a batch with the batch's other writes", async () => {
      const c = fresh("irec-batch");
      const entries = fresh("irec-batch-entries");
      await store.batch(async () => {
        await store.indexedRecords.add(c, INDEXES, [record("a", 1, { partner: "p", verdict: "match" })]);
        await store.put(entries, "a", { id: "a", n: 1 }, 1);
      });
      expect(await ids(c, { where: { partner: "p" } })).toEqual(["a"]);
      expect(await store.get(entries, "a")).toEqual({ id: "a", n: 1 });
    });

    if (factory.persistent)
      it("keeps the records and their counts across a reopen", async () => {
        const c = fresh("irec-kept");
        await store.indexedRecords.add(c, INDEXES, [record("a", 1, { partner: "p", verdict: "match" }), record("b", 2, { partner: "p", verdict: "mismatch" })]);
        const reopened = await factory.open();
        try {
          expect((await reopened.indexedRecords.range<Audit>(c, INDEXES, { where: { partner: "p" }, offset: 0, limit: 10 })).total).toBe(2);
          expect(await reopened.indexedRecords.get(c, "b")).toEqual({ id: "b", verdict: "mismatch" });
        } finally {
          await reopened.close();
        }
      });
  });
}
