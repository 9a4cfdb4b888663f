/** The Store contract's rules for entries: get / put / delete, putIfAbsent, update, putAll, batch. */
import type { Store } from "../../../core/contract/store";
import type { ContractContext, Doc } from "./context";
import { WEIGHTY_VALUE_CHARS } from "../../../core/store/stored-value";

export function recordRules({ store: storeOf, factory, fresh, keysOf }: ContractContext): void {
  let store: Store;
  beforeAll(() => {
    store = storeOf();
  });

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

    it("hands a weighty value (64 KiB on) over on a turn of the event loop after its parse (core/store/stored-value.ts)", async () => {
      const c = fresh("weighty");
      const value = { id: "big", text: "x".repeat(WEIGHTY_VALUE_CHARS) };
      await store.put(c, "big", value);
      // an immediate queued before the read runs in the check phase that follows its parse
      let checkPhase = false;
      setImmediate(() => (checkPhase = true));
      expect(await store.get(c, "big")).toStrictEqual(value);
      expect(checkPhase).toBe(true);
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

  describe("replace", () => {
    it("answers whether it replaced an entry, writes the value and re-indexes it like put", async () => {
      const c = fresh("replace");
      expect(await store.replace<Doc>(c, "a", { id: "a", n: 1 }, 10)).toBe(false);
      expect(await store.replace<Doc>(c, "b", { id: "b", n: 1 }, 20)).toBe(false);
      expect(await store.replace<Doc>(c, "a", { id: "a", n: 2 }, 30)).toBe(true);
      expect(await store.get(c, "a")).toEqual({ id: "a", n: 2 });
      expect(await keysOf(c)).toEqual(["b", "a"]);
      expect(await store.replace<Doc>(c, "a", { id: "a", n: 3 })).toBe(true);
      expect(await keysOf(c, { from: 30, to: 31 })).toEqual(["a"]);
      expect(await store.range<Doc>(c, { offset: 0, limit: 10 })).toEqual({ items: [{ id: "b", n: 1 }, { id: "a", n: 3 }], total: 2 });
    });

    it("tells exactly one of many concurrent callers that it created the entry", async () => {
      const c = fresh("replace-race");
      const replaced = await Promise.all(Array.from({ length: 20 }, (_, i) => store.replace<Doc>(c, "k", { id: "k", n: i }, i)));
      expect(replaced.filter((r) => !r)).toHaveLength(1);
      expect((await store.range<Doc>(c, { offset: 0, limit: 10 })).total).toBe(1);
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
}
