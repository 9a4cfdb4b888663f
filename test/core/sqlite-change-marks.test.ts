/** The SQLite store's change marks (core/store/sqlite-change-marks.ts): what a reader answering at once relies on. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteStore } from "../../core/store/sqlite-store";

describe("SqliteStore change marks", () => {
  let dir: string;
  let store: SqliteStore;
  let other: SqliteStore;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "change-marks-"));
    const file = path.join(dir, "state.db");
    store = SqliteStore.open(file);
    // another connection on the same file, as another process's store would be
    other = SqliteStore.open(file);
    await store.put("c", "k", "first");
  });

  afterEach(async () => {
    await Promise.all([store.close(), other.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("a mark stays the same while nothing is committed, reads included", async () => {
    const mark = store.changeMarks.mark();
    expect(mark).toBeDefined();
    await store.get("c", "k");
    await other.get("c", "k");
    await store.range("c", { offset: 0, limit: 10 });
    expect(store.changeMarks.mark()).toBe(mark);
    expect(store.changeMarks.getNow("c", "k")).toEqual({ value: "first" });
    expect(store.changeMarks.getNow("c", "absent")).toEqual({ value: undefined });
  });

  it("a mark changes with a commit of another connection, and with one of its own", async () => {
    const before = store.changeMarks.mark();
    await other.put("c", "k", "second");
    const afterOther = store.changeMarks.mark();
    expect(afterOther).not.toBe(before);
    expect(store.changeMarks.getNow("c", "k")).toEqual({ value: "second" });
    await store.put("c", "k2", "own");
    expect(store.changeMarks.mark()).not.toBe(afterOther);
    await other.delete("c", "k2");
    expect(store.changeMarks.mark()).not.toBe(afterOther);
  });

  it("gives no mark and no read while a transaction is open on the connection, whose writes may still roll back", async () => {
    let inside: [string | undefined, unknown] = ["", ""];
    await store.batch(async () => {
      await store.put("c", "k", "uncommitted");
      inside = [store.changeMarks.mark(), store.changeMarks.getNow("c", "k")];
    });
    expect(inside).toEqual([undefined, undefined]);
    expect(store.changeMarks.mark()).toBeDefined();
  });

  it("gives no mark for a database in memory, nor once the store is closed", async () => {
    const memory = SqliteStore.open(":memory:");
    expect(memory.changeMarks.mark()).toBeUndefined();
    await memory.close();
    await store.close();
    expect(store.changeMarks.mark()).toBeUndefined();
    expect(store.changeMarks.getNow("c", "k")).toBeUndefined();
  });
});
