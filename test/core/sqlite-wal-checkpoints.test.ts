/** The SQLite store's WAL checkpoints on a thread of their own (core/store/sqlite-wal-checkpoints.ts). */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "libsql";
import { SqliteStore } from "../../core/store/sqlite-store";

/** 40 values of 256 KiB: 10 MiB, about 2,600 WAL pages, under the store connection's backstop of 16,384 */
const VALUES = 40;
const VALUE = "x".repeat(256 * 1024);
const WRITTEN = VALUES * VALUE.length;

/** Sleeps the calling thread without returning to the event loop: nothing of the store runs on it meanwhile. */
const blockFor = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe("SqliteStore WAL checkpoints", () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "wal-checkpoints-"));
    file = path.join(dir, "state.db");
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("are made by another thread while the event loop runs nothing, not by the commits", async () => {
    const store = SqliteStore.open(file);
    await store.put("c", "first", "a value");
    // a reader of another connection holds its snapshot: no checkpoint, whoever runs it, copies past it
    const reader = new Database(file);
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) FROM entries").get();
    await store.putAll(
      "c",
      Array.from({ length: VALUES }, (_, i) => ({ key: `k${i}`, value: VALUE, sortKey: i })),
    );
    const before = fs.statSync(file).size;
    expect(before).toBeLessThan(WRITTEN);

    // from here on the event loop is held: only another thread can copy the WAL into the file
    reader.exec("COMMIT");
    let size = before;
    for (let waited = 0; size < WRITTEN && waited < 20_000; waited += 50) {
      blockFor(50);
      size = fs.statSync(file).size;
    }
    expect(size).toBeGreaterThanOrEqual(WRITTEN);
    reader.close();
    await store.close();
  });

  it("stop with the store, even in the middle of one: everything written is read back after a reopen", async () => {
    const store = SqliteStore.open(file);
    await store.putAll("c", Array.from({ length: VALUES }, (_, i) => ({ key: `k${i}`, value: `${i}${VALUE}`, sortKey: i })));
    await store.close();
    const again = SqliteStore.open(file);
    const page = await again.range<string>("c", { offset: 0, limit: VALUES });
    expect(page.items).toEqual(Array.from({ length: VALUES }, (_, i) => `${i}${VALUE}`));
    await again.close();
  });
});
