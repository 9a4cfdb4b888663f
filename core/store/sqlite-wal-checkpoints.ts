import { Worker } from "node:worker_threads";
import type { Database as Db } from "libsql";

/** How often the checkpoint thread copies what the WAL holds into the database file. */
export const WAL_CHECKPOINT_INTERVAL_MS = 100;
/**
 * The store's own connection checkpoints only past this many WAL pages (64 MiB of 4 KiB pages): a backstop
 * should the checkpoint thread be gone or starved, where SQLite's default (1,000 pages) has every commit that
 * crosses it checkpoint on the event loop.
 */
export const WAL_BACKSTOP_PAGES = 16_384;

/**
 * The checkpoint thread: plain JavaScript run by `eval`, so that it is the same from the compiled gateway and
 * under the tests' TypeScript transform. Its own connection to the file, a PASSIVE checkpoint each interval
 * (SQLite "Write-Ahead Logging", checkpointing: it never waits for readers or writers and never blocks them,
 * copying what it can), errors (a file locked for a moment) left for the next interval.
 */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.libsql);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 0");
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch {}
}, workerData.intervalMs);
parentPort.once("message", () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * WAL checkpoints off the event loop (issue #23): with SQLite's automatic checkpoint, the commit that takes
 * the WAL past 1,000 pages copies them into the database file and syncs it, on the event loop; on this
 * project's disk a 100 KB value written 2,000 times held 66 commits over 2 ms (p99 9.4 ms, the longest
 * 16.5 ms) against one without it (bench/RESULTS.md, "Request bodies at the body limits", session 13). The
 * store's connection keeps only a backstop (WAL_BACKSTOP_PAGES), and a thread of the process checkpoints
 * the file each WAL_CHECKPOINT_INTERVAL_MS through a connection of its own. Every gateway process on a file
 * runs one; SQLite lets one checkpoint run at a time, and a PASSIVE one that finds another running skips.
 */
export class WalCheckpoints {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(db: Db, file: string) {
    db.pragma(`wal_autocheckpoint = ${WAL_BACKSTOP_PAGES}`);
    this.worker = new Worker(CHECKPOINT_THREAD, {
      eval: true,
      workerData: { libsql: require.resolve("libsql"), file, intervalMs: WAL_CHECKPOINT_INTERVAL_MS },
    });
    // the thread never keeps the process alive: a CLI command that opened the store ends when it is done
    this.worker.unref();
    this.exited = new Promise((resolve) => this.worker.once("exit", () => resolve()));
    // a thread that fails leaves the backstop checkpointing: nothing to recover here
    this.worker.on("error", () => undefined);
  }

  /** Stops the thread (its connection closed) before the store's own connection closes. */
  async close(): Promise<void> {
    this.worker.postMessage("close");
    await this.exited;
  }
}
