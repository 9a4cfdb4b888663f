import { closeSync, openSync, readSync } from "node:fs";
import type { ChangeMarks } from "../contract/store";
import type { Db, Statement } from "./sqlite-schema";

/**
 * The WAL-index header: the first 48 bytes of the database's `-shm` file
 * (SQLite, "WAL-mode File Format", §2.2 "The WAL-Index Header"), which every
 * commit on any connection rewrites: its frame count and checksums (and, once
 * the WAL starts over, its salts) change with each transaction.
 */
const WAL_INDEX_HEADER_BYTES = 48;

/**
 * The SQLite store's change marks (ChangeMarks in core/contract/store.ts):
 * the WAL-index header as it is now. A commit by any connection, this one
 * or another process's, rewrites it before the commit returns, and it is
 * what SQLite itself compares to learn whether another connection committed
 * (what `PRAGMA data_version` reports). So a reader that took a mark before
 * it read an entry, and finds the same mark later, knows that the entry is
 * still what it read: a commit in between would have changed the mark.
 * A mark is one read of 48 bytes (under a µs), where `PRAGMA data_version`
 * or a read of the entry is a statement through libsql (several µs).
 *
 * No mark while a transaction is open on the connection (a group commit
 * running a batch: core/store/sqlite-group-commit.ts): its reads would see
 * writes not yet committed, which may still roll back. No mark either for
 * a database without a `-shm` file (":memory:"), nor on any error: the
 * caller then reads as usual, through the store's guarded reads.
 */
export class SqliteChangeMarks implements ChangeMarks {
  /** the `-shm` file, opened on the first mark; null: none to read */
  private shm?: number | null;
  private readonly header = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  private entry?: Statement;

  constructor(private readonly db: Db) {}

  mark(): string | undefined {
    if (!this.db.open || this.db.inTransaction) return undefined;
    if (this.shm === undefined) this.shm = this.openShm();
    if (this.shm === null) return undefined;
    try {
      return readSync(this.shm, this.header, 0, WAL_INDEX_HEADER_BYTES, 0) === WAL_INDEX_HEADER_BYTES ? this.header.toString("latin1") : undefined;
    } catch {
      return undefined;
    }
  }

  getNow<T>(collection: string, key: string): { value: T | undefined } | undefined {
    if (!this.db.open || this.db.inTransaction) return undefined;
    try {
      this.entry ??= this.db.prepare("SELECT value FROM entries WHERE collection = ? AND key = ?").raw(true);
      const row = this.entry.get(collection, key) as [string] | undefined;
      return { value: row === undefined ? undefined : (JSON.parse(row[0]) as T) };
    } catch {
      return undefined;
    }
  }

  /** Called by the store as it closes. */
  close(): void {
    if (typeof this.shm === "number") closeSync(this.shm);
    this.shm = null;
  }

  /** The database file's `-shm` (PRAGMA database_list names the file; none in memory or outside WAL mode). */
  private openShm(): number | null {
    try {
      const [main] = this.db.pragma("database_list") as { file?: string }[];
      const [mode] = this.db.pragma("journal_mode") as { journal_mode?: string }[];
      return main?.file && mode?.journal_mode?.toLowerCase() === "wal" ? openSync(`${main.file}-shm`, "r") : null;
    } catch {
      return null;
    }
  }
}
