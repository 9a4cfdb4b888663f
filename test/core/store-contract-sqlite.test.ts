import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteStore } from "../../core/store/sqlite-store";
import { describeStoreContract } from "./store-contract/contract";
import { sleep, type Doc } from "./store-contract/context";

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
