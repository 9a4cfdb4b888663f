import type { Cluster } from "ioredis";
import type { Logger } from "pino";
import { ClaimTakenError, type ClaimsOf, type RangeQuery, type Store, type StoreEntry, type StoredJsonPage, type StoredPage, type UpdateDecision } from "../contract/store";
import { createRedisClient, isRedisOutage, whenReady, type RedisClient, type RedisTarget } from "./redis-connection";
import { StoreHealth, StoreUnavailableError } from "../contract/store-unavailable";
import { RedisSharedReads } from "./shared-reads";
import type { OneRedisScript, SharedReads } from "../contract/store";
import { RANGE_LUA, WRITE_SCRIPTS, type WriteScript } from "./redis-scripts";
import { RedisIndexedRecords } from "./redis-indexed-records";
import { removeEarlierReleasesKeys } from "./redis-earlier-releases";
import { afterEncoding, encode, parseStored } from "./stored-value";

export interface RedisStoreOptions {
  target: RedisTarget;
  /** prepended to every key, e.g. "ocpi:"; must not contain braces (they would hijack the cluster hash tag) */
  keyPrefix: string;
  /** a command without an answer after this long fails with StoreUnavailableError; default 1000 */
  commandTimeoutMs?: number;
  /**
   * Cluster only: every write waits this long for a replica to acknowledge it (WAIT 1), and fails with
   * StoreUnavailableError when none did, so an acknowledged write survives the failover of its master; default 500
   */
  replicaAckTimeoutMs?: number;
  /** one Redis only: how long a busy instance's generation reads are used (SharedReads); default DEFAULT_GENERATION_LEASE_MS, 0: every batch reads */
  generationLeaseMs?: number;
  /** outages are logged here, once when they start and once when they end */
  log?: Logger;
}

export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 1000;
export const DEFAULT_REPLICA_ACK_TIMEOUT_MS = 500;

interface Scripts {
  storeRange(
    values: string,
    index: string,
    min: string,
    max: string,
    offset: number,
    limit: number,
  ): Promise<[number, ...string[]]>;
  /** storeRange with the values as their bytes (ioredis defines a `…Buffer` form of every command) */
  storeRangeBuffer(values: string, index: string, min: string, max: string, offset: number, limit: number): Promise<[number, ...Buffer[]]>;
}

type Client = RedisClient & Scripts & Record<WriteScript, (...args: (string | number)[]) => Promise<unknown>>;

const MAX_UPDATE_ATTEMPTS = 100;
const [OPEN, COMMA, CLOSE] = ["[", ",", "]"].map((text) => Buffer.from(text));
/** Entries per script of putAll: a page of a pull in a few round trips, without holding Redis up for long. */
const PUT_ALL_CHUNK = 500;
const MOVED = /^(MOVED|ASK) /;
const MAX_MOVED_ATTEMPTS = 3;

function scoreArg(n: number): string {
  if (n === Infinity) return "+inf";
  if (n === -Infinity) return "-inf";
  return String(n);
}

function sortKeyArg(sortKey: number | undefined): string {
  return sortKey === undefined ? "" : scoreArg(sortKey);
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Store shared by several gateway instances, on one Redis or a Redis Cluster.
 * Per collection there is a hash of key -> JSON and a sorted set of key by
 * sort key; both carry the collection as hash tag, so every script touches
 * one cluster slot (a lock is a single key).
 *
 * Connection-level failures (Redis down, a command timing out, a cluster
 * failing over) reject with StoreUnavailableError within about the command
 * timeout: nothing is queued while disconnected.
 */
export class RedisStore implements Store {
  readonly kind = "redis" as const;
  private readonly redis: Client;
  private readonly prefix: string;
  private readonly replicaAckTimeoutMs: number | undefined;
  private readonly health: StoreHealth;
  private lastError: Error | undefined;
  private closing = false;

  constructor(options: RedisStoreOptions) {
    if (/[{}]/.test(options.keyPrefix)) {
      throw new Error(`Redis key prefix must not contain braces: ${options.keyPrefix}`);
    }
    this.prefix = options.keyPrefix;
    this.health = new StoreHealth("redis", options.log);
    const cluster = "nodes" in options.target;
    this.replicaAckTimeoutMs = cluster ? (options.replicaAckTimeoutMs ?? DEFAULT_REPLICA_ACK_TIMEOUT_MS) : undefined;
    this.redis = createRedisClient(options.target, {
      commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    }) as Client;
    this.redis.on("error", (err: Error) => {
      this.lastError = err;
    });
    // A cluster reports per-node connection errors on a separate event.
    if (cluster) this.redis.on("node error", (err: Error) => (this.lastError = err));
    this.redis.on("close", () => {
      if (!this.closing) this.health.failed(this.lastError?.message ?? "connection closed");
    });
    this.redis.on("ready", () => this.health.succeeded(true));
    for (const [name, script] of Object.entries(WRITE_SCRIPTS)) this.redis.defineCommand(name, script);
    this.redis.defineCommand("storeRange", { numberOfKeys: 2, lua: RANGE_LUA, readOnly: true });
    // one Redis, every key on it: the reads of a batch can go in one script (a cluster's keys sit in different slots)
    if (!cluster) this.scriptOnOneRedis = (name, lua, collections, args) => this.script(name, lua, collections.flatMap((c) => this.keys(c)), args);
    if (!cluster) this.sharedReads = new RedisSharedReads(this.redis, (command) => this.run(command), (collection) => this.keys(collection)[0], options.generationLeaseMs);
  }

  /**
   * Not on a cluster: reads that wait for the next batch, shared with other
   * readers of generations on this Redis (the response cache's), so the
   * requests that arrive together cost one round trip (see SharedReads).
   */
  readonly sharedReads?: SharedReads;

  /** Not on a cluster, whose collections sit in different slots: one atomic script over several collections (OneRedisScript). */
  readonly scriptOnOneRedis?: OneRedisScript;

  /** Collections of records with indexed fields, each collection's keys under its hash tag (core/store/redis-indexed-records.ts). */
  readonly indexedRecords = new RedisIndexedRecords({
    keyOf: (collection) => `${this.prefix}{${collection}}:records`,
    writeRecords: (keys, args) => this.write("storeWriteRecords", keys.length, ...keys, ...args),
    get: (hash, key) => this.run(() => this.redis.hget(hash, key)),
    range: (values, index, query) => this.run(() => this.redis.storeRange(values, index, ...this.rangeArgs(query))),
  });

  /** A script defined once under `name`, run over `keys` (on a cluster: all in one slot). */
  private script<R>(name: string, lua: string, keys: readonly string[], args: readonly (string | number)[]): Promise<R> {
    const client = this.redis as unknown as Record<string, (...a: (string | number)[]) => Promise<R>>;
    if (typeof client[name] !== "function") this.redis.defineCommand(name, { lua });
    return this.run(() => client[name](keys.length, ...keys, ...args));
  }

  /** Resolves once the connection is ready; rejects (and closes) when it is not within `readyTimeoutMs`. */
  static async connect(options: RedisStoreOptions, readyTimeoutMs = 10_000): Promise<RedisStore> {
    const store = new RedisStore(options);
    try {
      await whenReady(store.redis, readyTimeoutMs, () => store.lastError);
      await store.run(() => removeEarlierReleasesKeys(store.redis, store.prefix));
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  async get<T>(collection: string, key: string): Promise<T | undefined> {
    const json = await this.run(() => this.redis.hget(this.keys(collection)[0], key));
    return json === null ? undefined : parseStored<T>(json);
  }

  async put<T>(collection: string, key: string, value: T, sortKey?: number): Promise<void> {
    await this.write("storeWrite", ...this.keys(collection), key, encode(value), sortKeyArg(sortKey));
  }

  /**
   * Every value encoded first, then one script per PUT_ALL_CHUNK entries, one after another (a later entry
   * with the same key wins), each atomic and, on a cluster, acknowledged by a replica like any write.
   */
  async putAll<T>(collection: string, entries: readonly StoreEntry<T>[]): Promise<void> {
    const keys = this.keys(collection);
    const chunks: string[][] = [];
    for (let i = 0; i < entries.length; i += PUT_ALL_CHUNK)
      chunks.push(entries.slice(i, i + PUT_ALL_CHUNK).flatMap((e) => [e.key, encode(e.value), scoreArg(e.sortKey)]));
    for (const args of chunks) await this.write("storeWriteMany", ...keys, ...args);
  }

  async replace<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean> {
    // a weighty body's large arrays in parts (core/model/parted-arrays.ts), any other value at once
    return (await afterEncoding(value, (json) => this.write("storeReplace", ...this.keys(collection), key, json, sortKeyArg(sortKey)))) === 0;
  }

  async putIfAbsent<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean> {
    return (await afterEncoding(value, (json) => this.write("storePutIfAbsent", ...this.keys(collection), key, json, sortKeyArg(sortKey)))) === 1;
  }

  /**
   * Optimistic: read, decide, then compare-and-set in Lua; retry when another
   * writer got in between. A Lua CAS instead of WATCH/MULTI/EXEC because WATCH
   * is per connection state, and concurrent updates share this one connection.
   */
  async update<T>(
    collection: string,
    key: string,
    change: (current: T | undefined) => UpdateDecision<T>,
  ): Promise<T | undefined> {
    return this.updateEntry(collection, key, change);
  }

  /** `update` whose compare-and-set script also takes and gives up the entry's claims (see the port). */
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
    const [values, index] = this.keys(collection);
    for (let attempt = 1; ; attempt++) {
      const stored = await this.run(() => this.redis.hget(values, key));
      const current = stored === null ? undefined : (JSON.parse(stored) as T);
      const decision = change(current);
      if (decision === undefined) return current;
      const json = encode(decision.value);
      const sortKey = sortKeyArg(decision.sortKey);
      const swapped = !claims
        ? await this.write("storeCompareAndSet", values, index, key, json, sortKey, stored ?? "")
        : await this.write<number | [string, string]>("storeClaimingCompareAndSet", values, index, this.claimsKey(collection),
            key, json, sortKey, stored ?? "", encode(current === undefined ? [] : claims(current)), encode(claims(decision.value)));
      if (Array.isArray(swapped)) throw new ClaimTakenError(swapped[0], swapped[1]);
      if (swapped === 1) return JSON.parse(json) as T;
      if (attempt >= MAX_UPDATE_ATTEMPTS) {
        throw new Error(`update of ${collection}/${key} lost ${attempt} races in a row; giving up`);
      }
      // Jitter spreads out writers that keep colliding on a hot key.
      if (attempt > 2) await pause(Math.random() * Math.min(attempt, 20));
    }
  }

  async delete(collection: string, key: string): Promise<boolean> {
    return (await this.write("storeDelete", ...this.keys(collection), key)) > 0;
  }

  async range<T>(collection: string, query: RangeQuery): Promise<StoredPage<T>> {
    const { total, items } = await this.rangeOfJson(collection, query);
    return { total, items: items.map((json) => JSON.parse(json) as T) };
  }

  /**
   * The range script's values as bytes, joined here into the page's text. Joined by the script (`table.concat`),
   * they cost redis-server about twice the CPU a page (208 µs against about 100 for 50 bench Locations: Lua's
   * concatenation of 29 KB and the values made Lua strings), which every gateway sharing that Redis waits on,
   * where joining the bytes here costs the gateway about 10 % more a page (bench/RESULTS.md, issue #26 target 1).
   */
  async rangeJson(collection: string, query: RangeQuery): Promise<StoredJsonPage> {
    const [total, ...values] = await this.run(() => this.redis.storeRangeBuffer(...this.keys(collection), ...this.rangeArgs(query)));
    if (values.length === 0) return { json: "[]", count: 0, total };
    const parts: Buffer[] = [OPEN];
    for (const value of values) parts.push(value, COMMA);
    parts[parts.length - 1] = CLOSE;
    return { json: Buffer.concat(parts).toString(), count: values.length, total };
  }

  private async rangeOfJson(collection: string, query: RangeQuery): Promise<StoredPage<string>> {
    const [total, ...items] = await this.run(() => this.redis.storeRange(...this.keys(collection), ...this.rangeArgs(query)));
    return { total, items };
  }

  /** The bounds, offset and limit of a query as the range scripts take them. */
  private rangeArgs(query: RangeQuery): [min: string, max: string, offset: number, limit: number] {
    return [
      query.from === undefined ? "-inf" : scoreArg(query.from),
      // "(" makes the upper bound exclusive.
      query.to === undefined ? "+inf" : `(${scoreArg(query.to)}`,
      Math.max(0, query.offset),
      query.limit,
    ];
  }

  /** No transaction across keys here (a cluster could not run one): the writes go as they come; concurrent ones share the connection's pipeline. */
  batch<R>(work: () => Promise<R>): Promise<R> {
    return work();
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.write("storeAcquireLock", this.lockKey(name), owner, Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  async renewLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.write("storeRenewLock", this.lockKey(name), owner, Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    await this.write("storeReleaseLock", this.lockKey(name), owner);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.redis.status === "end") return;
    if (this.redis.status !== "ready") {
      // quit() would sit in the offline queue until a reconnect that may never come.
      this.redis.disconnect();
      return;
    }
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  /**
   * Runs a write script. On a cluster, WAIT 1 follows it in one pipeline, so
   * it runs on the node that holds the key, right after the script: the
   * write is acknowledged only once a replica has it, and a write no replica
   * took within `replicaAckTimeoutMs` fails (its master may be failing over,
   * or have no replica left) rather than risk being lost by a failover.
   */
  private write<R = number>(script: WriteScript, ...args: (string | number)[]): Promise<R> {
    const waitMs = this.replicaAckTimeoutMs;
    if (waitMs === undefined) return this.run(() => this.redis[script](...args) as Promise<R>);
    return this.run(async () => {
      for (let attempt = 1; ; attempt++) {
        const pipeline = this.redis.pipeline() as unknown as Record<WriteScript, (...a: (string | number)[]) => unknown> & {
          wait(replicas: number, timeoutMs: number): unknown;
          exec(): Promise<[Error | null, unknown][] | null>;
        };
        pipeline[script](...args);
        pipeline.wait(1, waitMs);
        const results = await pipeline.exec();
        if (!results) throw new Error("Redis pipeline aborted");
        const [[scriptError, result], [waitError, replicas]] = results;
        // After a failover the old slot map sends the pipeline to a node that no longer serves the key: the
        // script did not run there (MOVED), while the keyless WAIT did, so ioredis does not redirect it itself.
        if (scriptError && MOVED.test(scriptError.message) && attempt < MAX_MOVED_ATTEMPTS) {
          // a refresh that fails leaves the map as it was: the next attempt, or the last one's error, tells
          await new Promise<void>((resolve) => (this.redis as Cluster).refreshSlotsCache(() => resolve()));
          continue;
        }
        if (scriptError) throw scriptError;
      if (waitError) throw waitError;
        if ((replicas as number) < 1) {
          throw new StoreUnavailableError("redis", `no replica acknowledged the write within ${waitMs} ms`);
        }
        return result as R;
      }
    });
  }

  /** Turns connection-level failures into StoreUnavailableError and keeps the outage log up to date. */
  private async run<R>(command: () => Promise<R>): Promise<R> {
    let result: R;
    try {
      result = await command();
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        this.health.failed(error.reason);
        throw error;
      }
      if (!isRedisOutage(error)) throw error;
      const reason = (error as Error).message;
      this.health.failed(reason);
      throw new StoreUnavailableError("redis", reason);
    }
    this.health.succeeded();
    return result;
  }

  /** [values hash, sort index]; the shared `{collection}` hash tag puts both in one cluster slot */
  private keys(collection: string): [values: string, index: string] {
    const base = `${this.prefix}{${collection}}`;
    return [`${base}:v`, `${base}:idx`];
  }

  /** the names the collection's entries hold (updateClaiming) → holder key, in the collection's slot */
  private claimsKey(collection: string): string {
    return `${this.prefix}{${collection}}:claims`;
  }

  private lockKey(name: string): string {
    return `${this.prefix}lock:${name}`;
  }
}
