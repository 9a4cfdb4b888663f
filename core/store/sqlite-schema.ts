import fs from "node:fs";
import path from "node:path";
import Database from "libsql";
import type { RangeQuery } from "../contract/store";

export type Db = Database.Database;
export type Statement = Database.Statement<unknown[]>;

/** How long a write waits for another connection's lock before failing with StoreUnavailableError (SqliteStoreOptions.busyTimeoutMs). */
export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 1000;

// Locked beyond the busy timeout, I/O errors, a full disk, a read-only or unopenable file: the
// request is fine, the file cannot take it now. Extended codes (SQLITE_IOERR_WRITE, …) share the prefix.
export const OUTAGE_CODES = /^SQLITE_(BUSY|IOERR|FULL|READONLY|CANTOPEN)/;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS entries (
  collection TEXT NOT NULL,
  key TEXT NOT NULL,
  sort_key INTEGER NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (collection, key)
);
CREATE INDEX IF NOT EXISTS entries_by_sort ON entries (collection, sort_key, key);
CREATE TABLE IF NOT EXISTS locks (
  name TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`;

/**
 * The maintained count of every collection, and a version that changes
 * whenever an entry's position can change (an entry added, removed or
 * re-sorted): a page's total is one row read instead of a COUNT over the
 * collection, and positions remembered in process (Checkpoints) are valid
 * while the version is the one they were taken at. Triggers keep both, in
 * the writing statement's transaction, whichever process writes.
 */
const COUNTS_SCHEMA = `
CREATE TABLE collections (
  collection TEXT PRIMARY KEY,
  n INTEGER NOT NULL,
  version INTEGER NOT NULL
);
INSERT INTO collections (collection, n, version) SELECT collection, COUNT(*), 1 FROM entries GROUP BY collection;
CREATE TRIGGER entries_added AFTER INSERT ON entries BEGIN
  INSERT INTO collections (collection, n, version) VALUES (new.collection, 1, 1)
  ON CONFLICT (collection) DO UPDATE SET n = n + 1, version = version + 1;
END;
CREATE TRIGGER entries_removed AFTER DELETE ON entries BEGIN
  UPDATE collections SET n = n - 1, version = version + 1 WHERE collection = old.collection;
END;
CREATE TRIGGER entries_moved AFTER UPDATE OF sort_key ON entries WHEN old.sort_key IS NOT new.sort_key BEGIN
  UPDATE collections SET version = version + 1 WHERE collection = new.collection;
END;
`;

/**
 * Opens (creating it if need be) the store's SQLite file, or ":memory:": WAL so several processes share the
 * file, the busy timeout a write waits for another connection's lock, and the tables, indexes and count
 * triggers above; the tables of earlier releases that nothing reads now are dropped.
 */
export const openSqliteDatabase = (file: string, busyTimeoutMs = DEFAULT_SQLITE_BUSY_TIMEOUT_MS): Db => {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  try {
    // Before WAL: switching the journal mode itself may have to wait for another connection.
    db.pragma(`busy_timeout = ${Math.max(0, Math.round(busyTimeoutMs))}`);
    if (file !== ":memory:") db.pragma("journal_mode = WAL");
    // WAL makes NORMAL durable against application crashes; only power loss can drop the last commits.
    db.pragma("synchronous = NORMAL");
    db.exec(SCHEMA);
    // Created once, with the counts of what is already stored; IMMEDIATE so two processes opening a file do not both do it.
    db.transaction(() => {
      const known = db.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'collections'").get();
      if (!known) db.exec(COUNTS_SCHEMA);
      // Store.keyLists' tables (until 2026-12-07), which nothing reads now
      db.exec("DROP TABLE IF EXISTS listed_keys; DROP TABLE IF EXISTS key_list_counts;");
    }).immediate();
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
};

/** Rows of one INSERT of putAll (and of the indexed records' writes); a power of two. */
export const PUT_ALL_ROWS = 64;

/** INSERT of `rows` entries, each replacing the value and sort key of one already stored; a later row with the same key wins. */
export const insertRows = (rows: number): string =>
  `INSERT INTO entries (collection, key, sort_key, value) VALUES ${Array(rows).fill("(?, ?, ?, ?)").join(", ")}
   ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value, sort_key = excluded.sort_key`;

/**
 * Runs `chunk` over `total` rows, PUT_ALL_ROWS at a time and the rest in halving sizes, so that few statements
 * are prepared (putAll, the indexed records' writes).
 */
export const inChunks = (total: number, chunk: (start: number, rows: number) => void): void => {
  for (let start = 0, rows = PUT_ALL_ROWS; start < total; ) {
    if (start + rows > total) rows /= 2;
    else {
      chunk(start, rows);
      start += rows;
    }
  }
};

/**
 * The WHERE of a range of sort keys within one collection (of `entries` or `indexed_records`): its collection,
 * from `query.from` (included) to `query.to` (excluded), with its parameters.
 */
export const sortKeyRange = (collection: string, query: Pick<RangeQuery, "from" | "to">): { where: string; params: unknown[] } => {
  let where = "collection = ?";
  const params: unknown[] = [collection];
  if (query.from !== undefined) {
    where += " AND sort_key >= ?";
    params.push(query.from);
  }
  if (query.to !== undefined) {
    where += " AND sort_key < ?";
    params.push(query.to);
  }
  return { where, params };
};

/**
 * SqliteStore's first page (its `frontPage`) with a `from` bound or not and a `to` bound or not: the total and the page's
 * values joined, parameters ?1 collection, ?2 from, ?3 to, ?4 limit, ?5 offset. The total is the collection's kept count
 * when no bound leaves an entry out (the lowest sort key at or after `from`, the highest before `to`), else the range's
 * COUNT. SQLite runs a CASE's subqueries only on the branch taken: a first page of 100,000 entries whose `from` holds
 * them all took 28 µs, one whose `from` leaves the first out 2,800 µs (the count), micro-benchmark of the statement.
 */
export const frontPageSql = (from: boolean, to: boolean): string => FRONT_PAGE_SQL[(from ? 1 : 0) + (to ? 2 : 0)];

const FRONT_PAGE_SQL = [0, 1, 2, 3].map((bounded) => {
  const [from, to] = [(bounded & 1) !== 0, (bounded & 2) !== 0];
  const bounds = `${from ? " AND sort_key >= ?2" : ""}${to ? " AND sort_key < ?3" : ""}`;
  const kept = "(SELECT n FROM collections WHERE collection = ?1)";
  const holdsAll = [
    ...(from ? ["(SELECT sort_key FROM entries WHERE collection = ?1 ORDER BY sort_key LIMIT 1) >= ?2"] : []),
    ...(to ? ["(SELECT sort_key FROM entries WHERE collection = ?1 ORDER BY sort_key DESC LIMIT 1) < ?3"] : []),
  ];
  const total = holdsAll.length ? `CASE WHEN ${holdsAll.join(" AND ")} THEN ${kept} ELSE (SELECT COUNT(*) FROM entries WHERE collection = ?1${bounds}) END` : kept;
  return `SELECT ${total} AS total, '[' || group_concat(value, ',') || ']' AS json, COUNT(*) AS n FROM
   (SELECT value FROM entries WHERE collection = ?1${bounds} ORDER BY sort_key, key LIMIT ?4 OFFSET ?5)`;
});
