import fs from "node:fs";
import path from "node:path";
import Database from "libsql";
import type { Logger } from "pino";
import type { RangeQuery, Store, StoredPage, UpdateDecision } from "./port";
import { StoreHealth, StoreUnavailableError } from "./store-unavailable";

type Db = Database.Database;
type Statement = Database.Statement<unknown[]>;

export interface SqliteStoreOptions {
  /** how long a write waits for another connection's lock before failing with StoreUnavailableError; default 1000 */
  busyTimeoutMs?: number;
  /** outages are logged here, once when they start and once when they end */
  log?: Logger;
}

export const DEFAULT_SQLITE_BUSY_TIMEOUT_MS = 1000;

// Locked beyond the busy timeout, I/O errors, a full disk, a read-only or unopenable file: the
// request is fine, the file cannot take it now. Extended codes (SQLITE_IOERR_WRITE, …) share the prefix.
const OUTAGE_CODES = /^SQLITE_(BUSY|IOERR|FULL|READONLY|CANTOPEN)/;

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

function encode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("store values must be JSON-serialisable");
  return json;
}

/**
 * Embedded store on one SQLite file (or ":memory:"). Every call is synchronous
 * underneath, so within one process operations never interleave; WAL plus
 * busy_timeout lets several processes share the file. The busy timeout blocks
 * the event loop while it waits, hence short by default; past it, and on I/O
 * failures, operations reject with StoreUnavailableError.
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  private readonly statements = new Map<string, Statement>();
  private closed = false;

  private constructor(
    private readonly db: Db,
    private readonly health: StoreHealth,
  ) {}

  static open(file: string, options: SqliteStoreOptions = {}): SqliteStore {
    if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const db = new Database(file);
    try {
      // Before WAL: switching the journal mode itself may have to wait for another connection.
      db.pragma(`busy_timeout = ${Math.max(0, Math.round(options.busyTimeoutMs ?? DEFAULT_SQLITE_BUSY_TIMEOUT_MS))}`);
      if (file !== ":memory:") db.pragma("journal_mode = WAL");
      // WAL makes NORMAL durable against application crashes; only power loss can drop the last commits.
      db.pragma("synchronous = NORMAL");
      db.exec(SCHEMA);
    } catch (err) {
      db.close();
      throw err;
    }
    return new SqliteStore(db, new StoreHealth("sqlite", options.log));
  }

  async get<T>(collection: string, key: string): Promise<T | undefined> {
    const json = this.guard(() => this.readJson(collection, key));
    return json === undefined ? undefined : (JSON.parse(json) as T);
  }

  async put<T>(collection: string, key: string, value: T, sortKey?: number): Promise<void> {
    const json = encode(value);
    this.guard(() => this.write(collection, key, json, sortKey));
  }

  async putIfAbsent<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean> {
    const json = encode(value);
    const result = this.guard(() =>
      this.stmt("INSERT INTO entries (collection, key, sort_key, value) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").run(
        collection,
        key,
        sortKey ?? 0,
        json,
      ),
    );
    return result.changes === 1;
  }

  async update<T>(
    collection: string,
    key: string,
    change: (current: T | undefined) => UpdateDecision<T>,
  ): Promise<T | undefined> {
    // IMMEDIATE takes the write lock before the read, so another process cannot
    // slip a write in between (and no read-to-write lock upgrade can deadlock).
    const run = this.db.transaction((): T | undefined => {
      const stored = this.readJson(collection, key);
      const current = stored === undefined ? undefined : (JSON.parse(stored) as T);
      const decision = change(current);
      if (decision === undefined) return current;
      const json = encode(decision.value);
      this.write(collection, key, json, decision.sortKey);
      return JSON.parse(json) as T;
    });
    return this.guard(() => run.immediate());
  }

  async delete(collection: string, key: string): Promise<boolean> {
    return this.guard(() => this.stmt("DELETE FROM entries WHERE collection = ? AND key = ?").run(collection, key)).changes > 0;
  }

  async range<T>(collection: string, query: RangeQuery): Promise<StoredPage<T>> {
    // One SQL text per bound combination keeps every query a plain index range scan.
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
    const read = this.db.transaction(() => {
      const counted = this.stmt(`SELECT COUNT(*) AS n FROM entries WHERE ${where}`).get(...params) as { n: number };
      const rows =
        query.limit > 0
          ? (this.stmt(`SELECT value FROM entries WHERE ${where} ORDER BY sort_key, key LIMIT ? OFFSET ?`).all(
              ...params,
              query.limit,
              Math.max(0, query.offset),
            ) as { value: string }[])
          : [];
      return { total: counted.n, items: rows.map((r) => JSON.parse(r.value) as T) };
    });
    // A read transaction so the count and the page come from the same snapshot.
    return this.guard(() => read.deferred());
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const result = this.guard(() =>
      this.stmt(
        `INSERT INTO locks (name, owner, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE locks.owner = excluded.owner OR locks.expires_at <= ?`,
      ).run(name, owner, now + ttlMs, now),
    );
    return result.changes === 1;
  }

  async renewLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const result = this.guard(() =>
      this.stmt("UPDATE locks SET expires_at = ? WHERE name = ? AND owner = ? AND expires_at > ?").run(
        now + ttlMs,
        name,
        owner,
        now,
      ),
    );
    return result.changes === 1;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    this.guard(() => this.stmt("DELETE FROM locks WHERE name = ? AND owner = ?").run(name, owner));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }

  /** Runs one synchronous operation, turning a file that cannot take it now into StoreUnavailableError. */
  private guard<R>(operation: () => R): R {
    let result: R;
    try {
      result = operation();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== "string" || !OUTAGE_CODES.test(code)) throw error;
      this.health.failed(code);
      throw new StoreUnavailableError("sqlite", code);
    }
    this.health.succeeded();
    return result;
  }

  /** The stored JSON text; libsql's row objects also carry `_metadata`, so only the column leaves here. */
  private readJson(collection: string, key: string): string | undefined {
    const row = this.stmt("SELECT value FROM entries WHERE collection = ? AND key = ?").get(collection, key) as
      | { value: string }
      | undefined;
    return row?.value;
  }

  /** An omitted sort key keeps the entry's current one (0 for a new entry). */
  private write(collection: string, key: string, json: string, sortKey: number | undefined): void {
    this.stmt(
      `INSERT INTO entries (collection, key, sort_key, value) VALUES (?, ?, ?, ?)
       ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value, sort_key = COALESCE(?, sort_key)`,
    ).run(collection, key, sortKey ?? 0, json, sortKey ?? null);
  }

  private stmt(sql: string): Statement {
    if (this.closed) throw new Error("SqliteStore is closed");
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
