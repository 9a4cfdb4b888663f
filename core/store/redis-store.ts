import { Redis, type RedisOptions } from "ioredis";
import type { RangeQuery, Store, StoredPage, UpdateDecision } from "./port";

export interface RedisStoreOptions {
  url: string;
  /** prepended to every key, e.g. "ocpi:"; must not contain braces (they would hijack the cluster hash tag) */
  keyPrefix: string;
  /** overrides of the connection defaults below */
  redisOptions?: RedisOptions;
  /** connection errors; without it they are swallowed (ioredis keeps reconnecting) */
  onError?: (err: Error) => void;
}

// An omitted sort key is sent as "" and means: keep the entry's current one (0 for a new entry).
const WRITE_LUA = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '' then redis.call('ZADD', KEYS[2], 'NX', 0, ARGV[1])
else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end
return 1`;

const PUT_IF_ABSENT_LUA = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3] == '' and 0 or ARGV[3], ARGV[1])
return 1`;

// Compare-and-set on the stored JSON text; ARGV[4] is what the caller read ("" = absent).
const COMPARE_AND_SET_LUA = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[4] == '' then
  if current then return 0 end
elseif current ~= ARGV[4] then return 0 end
${WRITE_LUA}`;

// Count, page and values in one script so they come from one consistent snapshot.
const RANGE_LUA = `
local total = redis.call('ZCOUNT', KEYS[2], ARGV[1], ARGV[2])
local out = { total }
if total == 0 or tonumber(ARGV[4]) <= 0 then return out end
local members = redis.call('ZRANGE', KEYS[2], ARGV[1], ARGV[2], 'BYSCORE', 'LIMIT', ARGV[3], ARGV[4])
for i = 1, #members, 500 do
  local values = redis.call('HMGET', KEYS[1], unpack(members, i, math.min(i + 499, #members)))
  for j = 1, #values do
    if values[j] then out[#out + 1] = values[j] end
  end
end
return out`;

const ACQUIRE_LOCK_LUA = `
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if owner then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

const RENEW_LOCK_LUA = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE_LOCK_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

interface Scripts {
  storeWrite(values: string, index: string, key: string, json: string, sortKey: string): Promise<number>;
  storePutIfAbsent(values: string, index: string, key: string, json: string, sortKey: string): Promise<number>;
  storeCompareAndSet(
    values: string,
    index: string,
    key: string,
    json: string,
    sortKey: string,
    expected: string,
  ): Promise<number>;
  storeRange(
    values: string,
    index: string,
    min: string,
    max: string,
    offset: number,
    limit: number,
  ): Promise<[number, ...string[]]>;
  storeAcquireLock(lock: string, owner: string, ttlMs: number): Promise<number>;
  storeRenewLock(lock: string, owner: string, ttlMs: number): Promise<number>;
  storeReleaseLock(lock: string, owner: string): Promise<number>;
}

const MAX_UPDATE_ATTEMPTS = 100;

function encode(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("store values must be JSON-serialisable");
  return json;
}

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
 * Store shared by several gateway instances. Per collection there is a hash of
 * key -> JSON and a sorted set of key by sort key; both carry the collection as
 * hash tag, so every multi-key command stays in one Redis Cluster slot.
 */
export class RedisStore implements Store {
  readonly kind = "redis" as const;
  private readonly redis: Redis & Scripts;
  private readonly prefix: string;
  private lastError: Error | undefined;

  constructor(options: RedisStoreOptions) {
    if (/[{}]/.test(options.keyPrefix)) {
      throw new Error(`Redis key prefix must not contain braces: ${options.keyPrefix}`);
    }
    this.prefix = options.keyPrefix;
    this.redis = new Redis(options.url, {
      // While Redis is down, fail commands within about a second instead of queueing them for minutes.
      maxRetriesPerRequest: 2,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      ...options.redisOptions,
    }) as Redis & Scripts;
    this.redis.on("error", (err: Error) => {
      this.lastError = err;
      options.onError?.(err);
    });
    this.redis.defineCommand("storeWrite", { numberOfKeys: 2, lua: WRITE_LUA });
    this.redis.defineCommand("storePutIfAbsent", { numberOfKeys: 2, lua: PUT_IF_ABSENT_LUA });
    this.redis.defineCommand("storeCompareAndSet", { numberOfKeys: 2, lua: COMPARE_AND_SET_LUA });
    this.redis.defineCommand("storeRange", { numberOfKeys: 2, lua: RANGE_LUA, readOnly: true });
    this.redis.defineCommand("storeAcquireLock", { numberOfKeys: 1, lua: ACQUIRE_LOCK_LUA });
    this.redis.defineCommand("storeRenewLock", { numberOfKeys: 1, lua: RENEW_LOCK_LUA });
    this.redis.defineCommand("storeReleaseLock", { numberOfKeys: 1, lua: RELEASE_LOCK_LUA });
  }

  /** Resolves once the connection is ready; rejects (and closes) when it is not within `readyTimeoutMs`. */
  static async connect(url: string, keyPrefix: string, readyTimeoutMs = 10_000): Promise<RedisStore> {
    const store = new RedisStore({ url, keyPrefix });
    try {
      await store.ready(readyTimeoutMs);
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  /** True while the connection is up; false while ioredis is reconnecting. */
  get connected(): boolean {
    return this.redis.status === "ready";
  }

  ready(timeoutMs: number): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.redis.off("ready", onReady);
        const cause = this.lastError ? `: ${this.lastError.message}` : "";
        reject(new Error(`Redis not ready within ${timeoutMs} ms${cause}`));
      }, timeoutMs);
      this.redis.once("ready", onReady);
    });
  }

  async get<T>(collection: string, key: string): Promise<T | undefined> {
    const json = await this.redis.hget(this.keys(collection)[0], key);
    return json === null ? undefined : (JSON.parse(json) as T);
  }

  async put<T>(collection: string, key: string, value: T, sortKey?: number): Promise<void> {
    await this.redis.storeWrite(...this.keys(collection), key, encode(value), sortKeyArg(sortKey));
  }

  async putIfAbsent<T>(collection: string, key: string, value: T, sortKey?: number): Promise<boolean> {
    const wrote = await this.redis.storePutIfAbsent(...this.keys(collection), key, encode(value), sortKeyArg(sortKey));
    return wrote === 1;
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
    const [values, index] = this.keys(collection);
    for (let attempt = 1; ; attempt++) {
      const stored = await this.redis.hget(values, key);
      const current = stored === null ? undefined : (JSON.parse(stored) as T);
      const decision = change(current);
      if (decision === undefined) return current;
      const json = encode(decision.value);
      const sortKey = sortKeyArg(decision.sortKey);
      const swapped = await this.redis.storeCompareAndSet(values, index, key, json, sortKey, stored ?? "");
      if (swapped === 1) return JSON.parse(json) as T;
      if (attempt >= MAX_UPDATE_ATTEMPTS) {
        throw new Error(`update of ${collection}/${key} lost ${attempt} races in a row; giving up`);
      }
      // Jitter spreads out writers that keep colliding on a hot key.
      if (attempt > 2) await pause(Math.random() * Math.min(attempt, 20));
    }
  }

  async delete(collection: string, key: string): Promise<boolean> {
    const [values, index] = this.keys(collection);
    const results = await this.redis.multi().hdel(values, key).zrem(index, key).exec();
    if (!results) throw new Error("Redis transaction aborted");
    const [hdel] = results;
    if (hdel[0]) throw hdel[0];
    return (hdel[1] as number) > 0;
  }

  async range<T>(collection: string, query: RangeQuery): Promise<StoredPage<T>> {
    const [total, ...jsons] = await this.redis.storeRange(
      ...this.keys(collection),
      query.from === undefined ? "-inf" : scoreArg(query.from),
      // "(" makes the upper bound exclusive.
      query.to === undefined ? "+inf" : `(${scoreArg(query.to)}`,
      Math.max(0, query.offset),
      query.limit,
    );
    return { total, items: jsons.map((json) => JSON.parse(json) as T) };
  }

  async acquireLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.storeAcquireLock(this.lockKey(name), owner, Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  async renewLock(name: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.storeRenewLock(this.lockKey(name), owner, Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  async releaseLock(name: string, owner: string): Promise<void> {
    await this.redis.storeReleaseLock(this.lockKey(name), owner);
  }

  async close(): Promise<void> {
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

  /** [values hash, sort index]; the shared `{collection}` hash tag puts both in one cluster slot */
  private keys(collection: string): [values: string, index: string] {
    const base = `${this.prefix}{${collection}}`;
    return [`${base}:v`, `${base}:idx`];
  }

  private lockKey(name: string): string {
    return `${this.prefix}lock:${name}`;
  }
}
