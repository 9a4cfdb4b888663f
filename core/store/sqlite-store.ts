import type { Logger } from "pino";
import { ClaimTakenError, type ClaimsOf, type RangeQuery, type Store, type StoreEntry, type StoredJsonPage, type StoredPage, type UpdateDecision } from "../contract/store";
import { StoreHealth, StoreUnavailableError } from "../contract/store-unavailable";
import { OUTAGE_CODES, frontPageSql, inChunks, insertRows, openSqliteDatabase, sortKeyRange, type Db, type Statement } from "./sqlite-schema";
import { GroupCommit } from "./sqlite-group-commit";
import { SqliteChangeMarks } from "./sqlite-change-marks";
import { SqliteIndexedRecords } from "./sqlite-indexed-records";
import { afterEncoding, encode, parseStored } from "./stored-value";

export interface SqliteStoreOptions {
  /** how long a write waits for another connection's lock before failing with StoreUnavailableError; default 1000 */
  busyTimeoutMs?: number;
  /** outages are logged here, once when they start and once when they end */
  log?: Logger;
}

/** Every CHECKPOINT_EVERY-th position of an unbounded collection is remembered, so a page at any offset reads at most this many rows before it. */
const CHECKPOINT_EVERY = 256;

/** Positions (sort key, key) of every CHECKPOINT_EVERY-th entry of a collection, taken at one version of it. */
interface Checkpoints {
  version: number;
  marks: [sortKey: number, key: string][];
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
  private readonly checkpoints = new Map<string, Checkpoints>();
  /** the writes and batches of one event-loop turn, in one commit (core/store/sqlite-group-commit.ts) */
  private readonly group: GroupCommit;
  private closed = false;
  /** collections of records with indexed fields (core/store/sqlite-indexed-records.ts) */
  readonly indexedRecords: SqliteIndexedRecords;

  private constructor(
    private readonly db: Db,
    private readonly health: StoreHealth,
    readonly changeMarks = new SqliteChangeMarks(db),
  ) {
    this.group = new GroupCommit((operation) => this.guard(operation), {
      begin: () => this.stmt("BEGIN IMMEDIATE").run(),
      commit: () => this.stmt("COMMIT").run(),
      rollback: () => this.stmt("ROLLBACK").run(),
      inTransaction: () => this.db.inTransaction,
    });
    this.indexedRecords = new SqliteIndexedRecords(db, {
      stmt: (sql) => this.stmt(sql),
      written: (operation) => this.group.written(() => this.transaction("IMMEDIATE", operation)),
      read: (operation) => this.guard(() => this.transaction("DEFERRED", operation)),
      readOne: (operation) => this.guard(operation),
    });
  }

  static open(file: string, options: SqliteStoreOptions = {}): SqliteStore {
    return new SqliteStore(openSqliteDatabase(file, options.busyTimeoutMs), new StoreHealth("sqlite", options.log));
  }

  async get<T>(collection: string, key: string): Promise<T | undefined> {
    const json = this.guard(() => this.readJson(collection, key));
    return json === undefined ? undefined : parseStored<T>(json);
  }

  async put<T>(collection: string, key: string, value: T, sortKey?: number): Promise<void> {
    const json = encode(value);
    await this.group.written(() => this.write(collection, key, json, sortKey));
  }

  /**
   * One transaction (or the open batch's); every value is encoded before the first is written. Rows go
   * PUT_ALL_ROWS to a statement (the rest in halving sizes, so few statements are prepared): one call into
   * SQLite per row took 8.1 µs of CPU per Location row, 64 rows a statement 4.3 µs.
   */
  async putAll<T>(collection: string, entries: readonly StoreEntry<T>[]): Promise<void> {
    const params = entries.flatMap((entry) => [collection, entry.key, entry.sortKey, encode(entry.value)]);
    await this.group.written(() => this.transaction("IMMEDIATE", () => {
      inChunks(entries.length, (row, rows) => this.stmt(insertRows(rows)).run(...params.slice(row * 4, (row + rows) * 4)));
    }));
  }

  async putIfAbsent<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean> {
    const insert = "INSERT INTO entries (collection, key, sort_key, value) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING";
    const result = await afterEncoding(value, (json) => this.group.written(() => this.stmt(insert).run(collection, key, sortKey ?? 0, json)));
    return result.changes === 1;
  }

  /** `put` in a transaction of its own that first looks up whether the key is held (its sort key, not its value). */
  async replace<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean> {
    // a weighty body's large arrays in parts (core/model/parted-arrays.ts), any other value at once
    return afterEncoding(value, (json) => this.group.written(() => this.transaction("IMMEDIATE", (): boolean => {
      const stored = this.stmt("SELECT sort_key FROM entries WHERE collection = ? AND key = ?").get(collection, key) as { sort_key: number } | undefined;
      if (stored === undefined) this.write(collection, key, json, sortKey);
      else this.rewrite(collection, key, json, sortKey === stored.sort_key ? undefined : sortKey);
      return stored !== undefined;
    })));
  }

  async update<T>(collection: string, key: string, change: (current: T | undefined) => UpdateDecision<T>): Promise<T | undefined> {
    return this.updateEntry(collection, key, change);
  }

  async updateClaiming<T>(
    collection: string,
    key: string,
    claims: ClaimsOf<T>,
    change: (current: T | undefined) => UpdateDecision<T>,
  ): Promise<T | undefined> {
    return this.updateEntry(collection, key, change, claims);
  }

  private async updateEntry<T>(
    collection: string,
    key: string,
    change: (current: T | undefined) => UpdateDecision<T>,
    claims?: ClaimsOf<T>,
  ): Promise<T | undefined> {
    // IMMEDIATE takes the write lock before the read, so another process cannot
    // slip a write in between (and no read-to-write lock upgrade can deadlock).
    const run = () => this.transaction("IMMEDIATE", (): T | undefined => {
      const stored = this.stmt("SELECT value, sort_key FROM entries WHERE collection = ? AND key = ?").get(collection, key) as
        | { value: string; sort_key: number }
        | undefined;
      const current = stored === undefined ? undefined : (JSON.parse(stored.value) as T);
      const decision = change(current);
      if (decision === undefined) return current;
      const json = encode(decision.value);
      // every check before the first write: in a group commit, an operation that throws must have written nothing
      const claimed = claims && this.checkClaims(collection, key, current === undefined ? [] : claims(current), claims(decision.value));
      if (stored === undefined) this.write(collection, key, json, decision.sortKey);
      else this.rewrite(collection, key, json, decision.sortKey === stored.sort_key ? undefined : decision.sortKey);
      claimed?.();
      return JSON.parse(json) as T;
    });
    return this.group.written(run);
  }

  /**
   * Checks that no other entry holds a name of `wanted` (ClaimTakenError) and answers the write of the
   * claims: `wanted` held by `key`, the names of `held` it gives up released.
   */
  private checkClaims(collection: string, key: string, held: readonly string[], wanted: readonly string[]): () => void {
    const claimsOf = `${collection}:claims`;
    const holderJson = encode(key);
    for (const name of wanted) {
      const holder = this.readJson(claimsOf, name);
      if (holder !== undefined && holder !== holderJson) throw new ClaimTakenError(name, JSON.parse(holder) as string);
    }
    return () => {
      for (const name of held)
        if (!wanted.includes(name)) this.stmt("DELETE FROM entries WHERE collection = ? AND key = ? AND value = ?").run(claimsOf, name, holderJson);
      for (const name of wanted) this.write(claimsOf, name, holderJson, undefined);
    };
  }

  async delete(collection: string, key: string): Promise<boolean> {
    return (await this.group.written(() => this.stmt("DELETE FROM entries WHERE collection = ? AND key = ?").run(collection, key))).changes > 0;
  }

  /**
   * A page costs O(page), whatever the offset: the total of a collection is
   * its maintained count (a bounded query counts its range), a page in the
   * back half is read backwards from the end, and one in the front half of
   * an unbounded query seeks from the nearest remembered checkpoint with
   * `(sort_key, key) >= (?, ?)` on the index, so at most CHECKPOINT_EVERY
   * rows are stepped over. The checkpoints are taken by one index-only pass
   * when first needed, and again after the collection's version changed.
   */
  async range<T>(collection: string, query: RangeQuery): Promise<StoredPage<T>> {
    const { json, total } = this.rangeOfJson(collection, query);
    return { total, items: JSON.parse(json) as T[] };
  }

  async rangeJson(collection: string, query: RangeQuery): Promise<StoredJsonPage> {
    return this.rangeOfJson(collection, query);
  }

  /**
   * The page as one row: the values joined by SQLite (`group_concat`) into one JSON array text, brackets
   * included (one flat string to JavaScript; bracketed there, the page would be copied again), which range
   * parses once. One row instead of one a value: libsql's cost is per row (stepping 50 rows of a page cost
   * about as much as the whole request else). The forward reads feed group_concat the rows of
   * a subquery with LIMIT, which SQLite runs in its ORDER BY order; the backward read (the back half)
   * orders inside the aggregate. The Store contract's page tests (test/core/store-contract/) check every
   * order on every path.
   */
  private rangeOfJson(collection: string, asked: RangeQuery): StoredJsonPage {
    if (asked.offset < CHECKPOINT_EVERY) return this.guard(() => this.frontPage(collection, asked));
    const read = () => this.transaction("DEFERRED", (): StoredJsonPage => {
      const query = asked.from !== undefined || asked.to !== undefined ? this.unlessHoldingAll(collection, asked) : asked;
      // One SQL text per bound combination keeps every query a plain index range scan.
      const bounded = query.from !== undefined || query.to !== undefined;
      const { where, params } = sortKeyRange(collection, query);
      let total: number;
      let version = 0;
      if (bounded) total = (this.stmt(`SELECT COUNT(*) AS n FROM entries WHERE ${where}`).get(...params) as { n: number }).n;
      else {
        const row = this.stmt("SELECT n, version FROM collections WHERE collection = ?").get(collection) as { n: number; version: number } | undefined;
        [total, version] = row ? [row.n, row.version] : [0, 0];
      }
      const offset = Math.max(0, query.offset);
      const count = Math.min(query.limit, total - offset);
      if (count <= 0) return { json: "[]", count: 0, total };
      const joined = (select: string, ...args: unknown[]) =>
        (this.stmt(`SELECT '[' || group_concat(value, ',') || ']' AS json, COUNT(*) AS n FROM (${select})`).get(...args) as { json: string | null; n: number });
      let page: { json: string | null; n: number };
      if (offset + count > total / 2) {
        // the back half: read backwards from the end, stepping over at most half the collection, usually next to nothing
        page = this.stmt(
          `SELECT '[' || group_concat(value, ',' ORDER BY sort_key, key) || ']' AS json, COUNT(*) AS n FROM
           (SELECT value, sort_key, key FROM entries WHERE ${where} ORDER BY sort_key DESC, key DESC LIMIT ? OFFSET ?)`,
        ).get(...params, count, total - offset - count) as { json: string | null; n: number };
      } else if (!bounded && offset >= CHECKPOINT_EVERY) {
        const marks = this.checkpointsOf(collection, version);
        const [sortKey, key] = marks[Math.floor(offset / CHECKPOINT_EVERY)];
        page = joined(
          "SELECT value FROM entries WHERE collection = ? AND (sort_key, key) >= (?, ?) ORDER BY sort_key, key LIMIT ? OFFSET ?",
          collection, sortKey, key, count, offset % CHECKPOINT_EVERY,
        );
      } else {
        page = joined(`SELECT value FROM entries WHERE ${where} ORDER BY sort_key, key LIMIT ? OFFSET ?`, ...params, count, offset);
      }
      return { json: page.json ?? "[]", count: page.n, total };
    });
    // A read transaction so the count and the page come from the same snapshot.
    return this.guard(read);
  }

  /**
   * A page near the front (a first page): its total and its values in one statement (frontPageSql: the
   * kept count where the bounds hold everything, as unlessHoldingAll decides), so one snapshot without a
   * transaction of its own; it steps over fewer than CHECKPOINT_EVERY rows, whatever the collection's size.
   * A bounded one (Sessions from the start of the data) took five statements (BEGIN, the lowest key, the
   * count, the page, COMMIT): 27-30 µs a page of 1,000 bench Sessions, 19-20 in one (micro-benchmark).
   */
  private frontPage(collection: string, query: RangeQuery): StoredJsonPage {
    const { from, to } = query;
    const page = this.stmt(frontPageSql(from !== undefined, to !== undefined))
      .get(collection, from ?? null, to ?? null, Math.max(0, query.limit), Math.max(0, query.offset)) as { total: number | null; json: string | null; n: number };
    return { json: page.json ?? "[]", count: page.n, total: page.total ?? 0 };
  }

  /**
   * `query` without its bounds when they hold every entry of the collection (its lowest and highest
   * sort keys, read off the index): a pull from the start of the data then takes the maintained count
   * instead of counting its range. Else `query` as it is. Inside range's read transaction.
   */
  private unlessHoldingAll(collection: string, query: RangeQuery): RangeQuery {
    const lowest = this.stmt("SELECT sort_key FROM entries WHERE collection = ? ORDER BY sort_key LIMIT 1").get(collection) as { sort_key: number } | undefined;
    if (!lowest || (query.from !== undefined && query.from > lowest.sort_key)) return query;
    if (query.to !== undefined) {
      const highest = this.stmt("SELECT sort_key FROM entries WHERE collection = ? ORDER BY sort_key DESC LIMIT 1").get(collection) as { sort_key: number };
      if (query.to <= highest.sort_key) return query;
    }
    return { offset: query.offset, limit: query.limit };
  }

  /** The collection's checkpoints at `version`, taken now when those in memory are of another version (inside range's read transaction). */
  private checkpointsOf(collection: string, version: number): Checkpoints["marks"] {
    const known = this.checkpoints.get(collection);
    if (known && known.version === version) return known.marks;
    const rows = this.stmt(
      `SELECT sort_key, key FROM (SELECT sort_key, key, row_number() OVER (ORDER BY sort_key, key) - 1 AS position FROM entries WHERE collection = ?)
       WHERE position % ${CHECKPOINT_EVERY} = 0`,
    )
      .raw(true)
      .all(collection) as [number, string][];
    // bounded: a process paging many collections keeps the recent ones
    if (this.checkpoints.size >= 1000) this.checkpoints.delete(this.checkpoints.keys().next().value!);
    this.checkpoints.set(collection, { version, marks: rows });
    return rows;
  }

  /** Runs `work` with its writes in one transaction, with the other writes of its turn (GroupCommit.batch). */
  batch<R>(work: () => Promise<R>): Promise<R> {
    return this.group.batch(work);
  }

  /**
   * `work` in a transaction of its own; within a batch's transaction it just
   * runs: the batch holds the write lock already, so nothing can come in
   * between, and every operation here writes with one statement after
   * everything that can throw. Statements are prepared once (libsql's
   * transaction() runs exec per call and does not nest).
   */
  private transaction<R>(mode: "IMMEDIATE" | "DEFERRED", work: () => R): R {
    if (this.db.inTransaction) return work();
    this.stmt(`BEGIN ${mode}`).run();
    try {
      const result = work();
      this.stmt("COMMIT").run();
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.stmt("ROLLBACK").run();
      throw error;
    }
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const result = await this.group.written(() =>
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
    const renew = this.stmt("UPDATE locks SET expires_at = ? WHERE name = ? AND owner = ? AND expires_at > ?");
    const result = await this.group.written(() => renew.run(now + ttlMs, name, owner, now));
    return result.changes === 1;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    await this.group.written(() => this.stmt("DELETE FROM locks WHERE name = ? AND owner = ?").run(name, owner));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // writes and batches issued before close are committed, not dropped
    await this.group.close();
    this.closed = true;
    this.statements.clear();
    this.changeMarks.close();
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
    return (this.stmt("SELECT value FROM entries WHERE collection = ? AND key = ?").get(collection, key) as { value: string } | undefined)?.value;
  }

  /** An omitted sort key keeps the entry's current one (0 for a new entry). */
  private write(collection: string, key: string, json: string, sortKey: number | undefined): void {
    this.stmt(
      `INSERT INTO entries (collection, key, sort_key, value) VALUES (?, ?, ?, ?)
       ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value, sort_key = COALESCE(?, sort_key)`,
    ).run(collection, key, sortKey ?? 0, json, sortKey ?? null);
  }

  /**
   * A stored entry's new value, and its new sort key when it moves: with the sort key in an UPDATE's SET
   * list SQLite rewrites its index entry even when the value is the same (an outbox claim's update took about
   * three times as long, in a loop of libsql updates of 500-byte values).
   */
  private rewrite(collection: string, key: string, json: string, sortKey: number | undefined): void {
    if (sortKey === undefined) this.stmt("UPDATE entries SET value = ? WHERE collection = ? AND key = ?").run(json, collection, key);
    else this.stmt("UPDATE entries SET value = ?, sort_key = ? WHERE collection = ? AND key = ?").run(json, sortKey, collection, key);
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
