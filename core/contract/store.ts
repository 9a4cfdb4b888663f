/**
 * The gateway's state store. Everything the gateway must remember across
 * restarts (partner registrations, token hashes, adapter data of the `local`
 * adapter, pending commands, outbox, sync watermarks) goes through this port,
 * so SQLite (embedded default) and Redis (shared by several instances) are
 * interchangeable. Both implementations pass the contract in test/core/store-contract/
 * (run by test/core/store-contract-*.test.ts).
 *
 * Values are JSON-serialisable. A collection is an ordered index of keys by a
 * numeric sort key (for OCPI data: last_updated in epoch ms); ties are ordered
 * by key, so pages are stable.
 *
 * A page costs O(page) whatever the collection's size and the offset: both
 * stores keep each collection's count (SQLite: a table kept by triggers;
 * Redis: the sorted set's own) and reach an offset through the index (SQLite:
 * from the nearer end, or from a remembered checkpoint; Redis: by rank). A
 * bounded query (from/to) counts its range.
 */
export interface RangeQuery {
  /** inclusive lower bound on the sort key */
  from?: number;
  /** exclusive upper bound on the sort key */
  to?: number;
  offset: number;
  limit: number;
}

export interface StoredPage<T> {
  items: T[];
  /** number of entries within [from, to), ignoring offset and limit */
  total: number;
}

/** A page of entries as the store keeps them: their JSON texts, unparsed, joined into one JSON array text. */
export interface StoredJsonPage {
  /** `[` + the entries' JSON texts, comma-separated, in the page's order + `]` */
  json: string;
  /** how many entries `json` holds */
  count: number;
  /** number of entries within [from, to), ignoring offset and limit */
  total: number;
}

/** One entry of `putAll`: as `put`'s arguments, the sort key given. */
export interface StoreEntry<T> {
  key: string;
  value: T;
  sortKey: number;
}

/** A condition on one entry: it holds `value` (a JSON string value), e.g. the registration generation a write was decided under. */
export interface StoreGuard {
  collection: string;
  key: string;
  value: string;
}

/** What an update function decides: write `value` (re-indexed at `sortKey`), or leave the entry as it is. */
export type UpdateDecision<T> = { value: T; sortKey?: number } | undefined;

/** The names a value of a collection holds (`Store.updateClaiming`): a partner record's parties. */
export type ClaimsOf<T> = (value: T) => readonly string[];

/** `updateClaiming` refused: `claim` is held by the entry `holder` of the collection. Nothing was written. */
export class ClaimTakenError extends Error {
  constructor(
    readonly claim: string,
    readonly holder: string,
  ) {
    super(`${claim} is held by another entry`);
    this.name = "ClaimTakenError";
  }
}

/**
 * Reads shared by the requests that arrive together (one round trip per batch of one event-loop turn), with the
 * writes that must follow them ordered after them, and generation tokens leased among the gateway's instances:
 * a capability of the Redis store on one Redis (core/store/shared-reads.ts). Absent on SQLite and on a cluster.
 */
export interface SharedReads {
  /** this instance's name in generation leases */
  readonly holder: string;
  /** whether the connection it reads on is up */
  readonly ready: boolean;
  get<T>(collection: string, key: string): Promise<T | undefined>;
  /** the tokens of `keys`, one read per batch; `fresh` makes one for a key that has none */
  tokens(keys: string[], fresh: () => string, id?: string): Promise<string[]>;
  /** what `get` answers now when it needs no waiting (a lease's answer that came in), else undefined; asks for no read */
  heldGet<T>(collection: string, key: string): { value: T | undefined } | undefined;
  /** as heldGet, for the tokens read under `id` */
  heldTokens(id: string): string[] | undefined;
  setToken(key: string, token: string): Promise<void>;
  /** runs `write` after the shared reads already sent, so no read of this batch sees half of it */
  writing(write: () => Promise<void>): Promise<void>;
}

/**
 * Reads answered at once, without a promise, where the store can tell cheaply whether anything was committed
 * since: the SQLite store (core/store/sqlite-change-marks.ts: the WAL-index header, which every commit of any
 * connection rewrites).
 */
export interface ChangeMarks {
  /**
   * A mark that differs from every earlier one once anything was committed, by this connection or another;
   * undefined when none can be given now (a transaction open on the connection, whose uncommitted writes its
   * reads would see; no WAL; an error): then read as usual.
   */
  mark(): string | undefined;
  /** What `get` answers, read now; undefined also when it cannot be read now (read as usual then). */
  getNow<T>(collection: string, key: string): { value: T | undefined } | undefined;
}

/**
 * A Lua script, defined once under `name`, run atomically on the store's one Redis over the keys of
 * `collections` (for the i-th: its values hash KEYS[2i-1] and sort index KEYS[2i]) with `args` as ARGV, in one
 * round trip: a capability of the Redis store on one Redis only (a cluster's collections sit in different slots).
 */
export type OneRedisScript = <R>(name: string, lua: string, collections: readonly string[], args: readonly (string | number)[]) => Promise<R>;

/** A record of an indexed collection (`Store.indexedRecords`): its key, its sort key, the values of its indexed fields, its value. */
export interface IndexedRecord<T> {
  key: string;
  sortKey: number;
  /** its indexed fields by name, each a string; a field the record has not leaves it out of the indexes that name it */
  fields: Readonly<Record<string, string>>;
  value: T;
}

/**
 * An indexed collection's indexes, at most three (`MAX_RECORD_INDEXES`), each the names of the fields it selects records by,
 * e.g. `[["partner"], ["partner", "verdict"], ["verdict"]]`. Declared alike by every write and read of the collection:
 * an index keeps its place in the list once records are written (SQLite keeps the i-th in a column of its own).
 */
export type RecordIndexes = readonly (readonly string[])[];
export const MAX_RECORD_INDEXES = 3;

/** A page of an indexed collection's records: those whose fields hold `where`'s values (its names those of one of the indexes), or all. */
export interface IndexedQuery extends RangeQuery {
  where?: Readonly<Record<string, string>>;
}

/**
 * Collections apart from the others whose records declare a few indexed scalar fields (the CDR audit's verdict and
 * partner): a record and its place in every index are one write (SQLite: one row whose index columns are indexed;
 * Redis: one script over the collection's hash and sorted sets, under its hash tag), where lists of its key would
 * cost a row or a command each. Paged and counted as a collection is, each index's counts kept as records are
 * written. SQLite writes the records of an `add` or `put` in one transaction (or the open batch's), Redis in one
 * atomic script per few hundred.
 */
export interface IndexedRecords {
  /** Writes the records whose keys are not written yet, the first of a key in `records`; answers how many it wrote. */
  add<T>(collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): Promise<number>;
  /** Writes the records, each replacing the one of its key (its value, sort key and indexed fields); a later one of a key in `records` wins. */
  put<T>(collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): Promise<void>;
  get<T>(collection: string, key: string): Promise<T | undefined>;
  /** A page of the records `query.where` selects, ordered by sort key then key; a `where` no index selects by is an Error. */
  range<T>(collection: string, indexes: RecordIndexes, query: IndexedQuery): Promise<StoredPage<T>>;
}

export interface Store {
  readonly kind: "sqlite" | "redis";
  get<T>(collection: string, key: string): Promise<T | undefined>;
  put<T>(collection: string, key: string, value: T, sortKey?: number): Promise<void>;
  /**
   * `put` of several entries of one collection, in their order (a later entry with the same key wins), for
   * bulk writes such as a page of a sync pull: SQLite writes them in one transaction, Redis in one script per
   * few hundred (each script atomic, as each `put` is) instead of a round trip each.
   */
  putAll<T>(collection: string, entries: readonly StoreEntry<T>[]): Promise<void>;
  /**
   * `put` answering whether it replaced an entry (true) or created one (false), in one atomic step, without
   * reading the value it replaces: a PUT of a whole object, which needs only to know which (HTTP 200 or 201).
   */
  replace<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean>;
  /** Writes only when the key is absent; true when it wrote. */
  putIfAbsent<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean>;
  /**
   * Atomic read-modify-write of one entry. `change` may throw: then nothing is
   * written and the error propagates. It may be called more than once when a
   * concurrent writer wins (Redis optimistic locking), so it must be pure.
   * Resolves to the value stored afterwards.
   */
  update<T>(collection: string, key: string, change: (current: T | undefined) => UpdateDecision<T>): Promise<T | undefined>;
  /**
   * `update` of an entry whose values hold names (`claims`) that no other entry of the collection may hold
   * at the same time (a partner's parties). The value, the names it takes and those it gives up are
   * written in one atomic step, the claims kept beside the collection (SQLite: collection
   * `<collection>:claims`, in the update's transaction; Redis and Redis Cluster: a hash under the
   * collection's hash tag, in the compare-and-set script), so of concurrent writes claiming one name
   * exactly one wins. A name another entry holds rejects with ClaimTakenError, and nothing is written.
   * Every write that can change what an entry's value claims must go through here.
   */
  updateClaiming<T>(
    collection: string,
    key: string,
    claims: ClaimsOf<T>,
    change: (current: T | undefined) => UpdateDecision<T>,
  ): Promise<T | undefined>;
  delete(collection: string, key: string): Promise<boolean>;
  /** Collections of records with indexed fields, apart from the others (IndexedRecords). */
  readonly indexedRecords: IndexedRecords;
  /** Entries ordered by sort key then key, within the query's bounds. */
  range<T>(collection: string, query: RangeQuery): Promise<StoredPage<T>>;
  /**
   * `range` as the JSON texts the store keeps, not parsed (each `JSON.stringify` of the value written), in
   * one JSON array text: `JSON.parse` of it is `range`'s items. For a page answered as it was stored
   * (core/contract/page.ts JsonPage).
   */
  rangeJson(collection: string, query: RangeQuery): Promise<StoredJsonPage>;
  /**
   * Runs `work`, whose writes are committed together where the store can:
   * SQLite makes them one transaction (other writers wait until it is
   * committed; what `work` wrote is committed even when it fails half-way,
   * each write being complete by itself). Redis runs them as they come, each
   * atomic as always: `work` may issue them concurrently, which pipelines
   * them. For bulk writes such as a page of a sync pull.
   */
  batch<R>(work: () => Promise<R>): Promise<R>;
  /** A lock with expiry: true when `owner` now holds it (acquired or already held). */
  acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends a lock `owner` holds; false when it is no longer held by `owner`. */
  renewLock(name: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLock(name: string, owner: string): Promise<void>;
  close(): Promise<void>;
  /** optional capability: shared reads and generation leases (the Redis store on one Redis) */
  readonly sharedReads?: SharedReads;
  /** optional capability: reads answered at once while nothing was written (the SQLite store) */
  readonly changeMarks?: ChangeMarks;
  /** optional capability: one atomic script over several collections (the Redis store on one Redis) */
  readonly scriptOnOneRedis?: OneRedisScript;
}
