import { randomUUID } from "node:crypto";
import type { SharedReads } from "../contract/store";
import type { RedisClient } from "./redis-connection";
import { MAX_GENERATION_LEASE_MS } from "../../config/types";
import { LeasedAnswers } from "./shared-reads-leases";

/**
 * How long the answers of a leased batch are used (SharedReads): the
 * store's `generation_lease_ms`, 0 to turn leases off. 5 ms is what was
 * measured (bench/RESULTS.md).
 */
export const DEFAULT_GENERATION_LEASE_MS = 5;

/**
 * The store collection whose values key holds the leases: a hash of holder
 * (one per SharedReads, so one per instance) → the Redis time (ms) its lease
 * ends, never read as a collection. The outbox's enqueue script reads it too
 * (core/outbox/outbox.ts).
 */
export const GENERATION_LEASES = "generation-leases";

/**
 * Lua, for the scripts that read the leases (these and the outbox's enqueue):
 * `lease_now()`, Redis's clock in ms, `others_lease_end(key, holder, now)`,
 * when the last lease of another holder than `holder` ends (0: none runs),
 * removing the leases that ended, and `others_lease_left(key, holder)`, how
 * long from now until that lease is surely over (ms; 0: none runs). A lease stored
 * as ending at e (ms, rounded down) ran at most until e + 1: one is over once
 * e < now, and one ending at e = now still has up to 1 ms to run (so it is waited
 * for, as the outbox's enqueue holds a message until e + 1). No lease runs
 * longer than MAX_GENERATION_LEASE_MS from when it was taken, so an end
 * further away than that (Redis's clock set back since) counts as that far:
 * a step of the clock never holds writes up for longer. (A step forward
 * shortens the waits, as it shortens every key's expiry in Redis.)
 */
export const LEASES_LUA = `
local function lease_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function others_lease_end(key, holder, now)
  local last, held = 0, redis.call('HGETALL', key)
  for i = 1, #held, 2 do
    local ends = tonumber(held[i + 1])
    if ends < now then redis.call('HDEL', key, held[i])
    elseif held[i] ~= holder and ends > last then last = ends end
  end
  return math.min(last, now + ${MAX_GENERATION_LEASE_MS})
end
local function others_lease_left(key, holder)
  local now = lease_now()
  local ends = others_lease_end(key, holder, now)
  if ends == 0 then return 0 end
  return ends + 1 - now
end`;

// The reads of one batch in one script. KEYS[1] the leases, where holder ARGV[3]'s lease is set to end ARGV[2]
// ms from now unless that is 0 (the hash kept at least as long); then ARGV[1] hash fields (KEYS[i + 1],
// field ARGV[i + 3]), then generation tokens, each created from its ARGV when absent (see core/cache/redis-tier.ts).
const SHARED_READS_LUA = `${LEASES_LUA}
local fields, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
if lease > 0 then
  redis.call('HSET', KEYS[1], ARGV[3], lease_now() + lease)
  if redis.call('PTTL', KEYS[1]) <= lease then redis.call('PEXPIRE', KEYS[1], lease + 1) end
end
local out = {}
for i = 1, fields do out[i] = redis.call('HGET', KEYS[i + 1], ARGV[i + 3]) end
for i = fields + 1, #KEYS - 1 do
  local token = redis.call('GET', KEYS[i + 1])
  if not token then
    token = ARGV[i + 3]
    redis.call('SET', KEYS[i + 1], token)
  end
  out[i] = token
end
return out`;

// How long (ms; 0: none) the last lease in KEYS[1] of another holder than ARGV[1] has to run.
const OTHERS_LEASE_LUA = `${LEASES_LUA}
return others_lease_left(KEYS[1], ARGV[1])`;

// A generation token KEYS[1] set to ARGV[1]; then as OTHERS_LEASE_LUA for the leases KEYS[2] and holder ARGV[2].
const SET_GENERATION_LUA = `${LEASES_LUA}
redis.call('SET', KEYS[1], ARGV[1])
return others_lease_left(KEYS[2], ARGV[2])`;

type Client = RedisClient & {
  storeSharedReads(count: number, ...keysThenArgs: (string | number)[]): Promise<(string | null)[]>;
  storeSetGeneration(key: string, leases: string, token: string, holder: string): Promise<number>;
  storeOthersLease(leases: string, holder: string): Promise<number>;
};

interface Waiting<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

const waiting = <T>(): Waiting<T> => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

interface Batch {
  /** store entries read as RedisStore.get reads them: values hash and key */
  fields: Map<string, { hash: string; field: string; result: Waiting<unknown> }>;
  /** generation tokens: their keys, the tokens to create absent ones with */
  tokens: Map<string, { keys: string[]; fresh: string[]; result: Waiting<string[]> }>;
}

/**
 * The reads of generations that arrive together, in one script on one round
 * trip: the store's registration generation (core/partners/
 * registration-generation.ts) and the response cache's generation tokens
 * (core/cache/redis-tier.ts). A batch is sent in the check phase after the
 * I/O that brought its readers, so it starts after each of them asked and
 * sees every write that completed before; a reader asking once it was sent
 * waits for the next one. The same read asked twice in a batch is read once.
 *
 * Leases. While batches follow each other closely (the last one sent less
 * than two lease lengths ago: a busy instance), a batch also takes a lease
 * in Redis: this instance's entry in the leases hash, set to end `leaseMs`
 * after the script ran (by Redis's clock). Readers asking within `leaseMs`
 * of the batch being sent take its answers instead of waiting for a round
 * trip of their own. That stays exact because every write of a generation
 * waits out the other instances' leases before it completes: `setToken`
 * (the cache's invalidations) and `writing` (the registration generation's
 * renewal) settle only once the last lease of another instance they saw
 * after the write has ended, and the outbox queues a message behind such a
 * lease as not due before that (core/outbox/outbox.ts). A batch sent at t0
 * ran its script at tr ≥ t0: a write before tr is in its answers, and a
 * write after tr completes after tr + leaseMs ≥ t0 + leaseMs, past which
 * nobody takes them. This instance's own leases are dropped instead, as
 * its write starts and again once it is done (a batch sent in between may
 * have been read before the write): what this instance reads after its
 * own write completed is read after it, and a write never waits for the
 * instance's own readers (one instance alone never waits). So a request
 * that arrives after a write completed (a token revoked, an answer
 * invalidated, on any instance) is never served under what that write
 * replaced. Writers wait only while another instance is busy reading, and
 * at most `leaseMs`. Durations, not clock readings, cross processes here
 * (Redis's clock and this process's monotonic clock), so instances need
 * no common clock. A connection that closes drops the leases at once.
 *
 * A store entry read here fails as RedisStore.get fails (StoreUnavailableError
 * on an outage); the tokens' reader decides for itself what a failure means.
 */
export class RedisSharedReads implements SharedReads {
  private next?: Batch;
  /** the answers of leased batches, by the ids their readers asked under (one per read: a few per module and party) */
  private readonly leasedFields: LeasedAnswers<unknown>;
  private readonly leasedTokens: LeasedAnswers<string[]>;
  private lastSentAt = -Infinity;
  private readonly leasesKey: string;
  private readonly redis: Client;
  /** whose leases this takes, in the leases hash (GENERATION_LEASES): one per instance */
  readonly holder = randomUUID();

  /** `redis`: the store's connection, on which this defines its scripts */
  constructor(
    redis: RedisClient,
    private readonly run: <R>(command: () => Promise<R>) => Promise<R>,
    private readonly valuesKey: (collection: string) => string,
    private readonly leaseMs = DEFAULT_GENERATION_LEASE_MS,
  ) {
    this.leasesKey = valuesKey(GENERATION_LEASES);
    this.leasedFields = new LeasedAnswers();
    this.leasedTokens = new LeasedAnswers();
    redis.defineCommand("storeSharedReads", { lua: SHARED_READS_LUA });
    redis.defineCommand("storeSetGeneration", { numberOfKeys: 2, lua: SET_GENERATION_LUA });
    redis.defineCommand("storeOthersLease", { numberOfKeys: 1, lua: OTHERS_LEASE_LUA });
    redis.on("close", () => this.dropLeases());
    this.redis = redis as Client;
  }

  /** The connection is up (reads are not queued while it is not: they fail). */
  get ready(): boolean {
    return this.redis.status === "ready";
  }

  /** What RedisStore.get(collection, key) answers, read in the next batch (or the leased one). */
  get<T>(collection: string, key: string): Promise<T | undefined> {
    const hash = this.valuesKey(collection);
    const id = `${hash}\n${key}`;
    return (this.leasedFields.answer(id) ?? this.readField(hash, key, id)) as Promise<T | undefined>;
  }

  /**
   * What `get` answers now when that needs no waiting: the answer of a
   * leased batch whose lease still runs and which came in (the value `get`'s
   * promise resolves with); undefined when `get` would wait for a batch.
   * Asks for no read.
   */
  heldGet<T>(collection: string, key: string): { value: T | undefined } | undefined {
    return this.leasedFields.value(`${this.valuesKey(collection)}\n${key}`) as { value: T | undefined } | undefined;
  }

  /** As heldGet, for the generation tokens `tokens` read under `id`. */
  heldTokens(id: string): string[] | undefined {
    return this.leasedTokens.value(id)?.value;
  }

  /**
   * The generation tokens stored under `keys` (string keys, absent ones set
   * to `fresh()` each), read in the next batch (or the leased one); `id`
   * names the keys (the same keys, the same id).
   */
  tokens(keys: string[], fresh: () => string, id = keys.join("\n")): Promise<string[]> {
    return this.leasedTokens.answer(id) ?? this.readTokens(keys, fresh, id);
  }

  /** A read of the entry `field` of `hash` in the next batch. */
  private readField(hash: string, field: string, id: string): Promise<unknown> {
    const fields = this.batch().fields;
    let read = fields.get(id);
    if (!read) fields.set(id, (read = { hash, field, result: waiting() }));
    return read.result.promise;
  }

  /** A read of the tokens of `keys` in the next batch. */
  private readTokens(keys: string[], fresh: () => string, id: string): Promise<string[]> {
    const tokens = this.batch().tokens;
    let read = tokens.get(id);
    if (!read) tokens.set(id, (read = { keys, fresh: keys.map(() => fresh()), result: waiting() }));
    return read.result.promise;
  }

  /**
   * Sets a generation token, on the connection the batches go on: a batch
   * asked for after this was called is read after it (Redis answers one
   * connection's commands in order), so it never reads the token this
   * replaces. Settles once the other instances' leases taken before it
   * have ended. Fails as the tokens' batches fail.
   */
  async setToken(key: string, token: string): Promise<void> {
    this.dropLeases();
    const othersLease = await this.run(() => this.redis.storeSetGeneration(key, this.leasesKey, token, this.holder));
    this.dropLeases();
    await outlast(othersLease);
  }

  /**
   * A write of a generation kept in the store (the registration generation):
   * a read asked after it started waits for a batch sent after it, and it
   * settles once the other instances' leases taken before it have ended.
   */
  async writing(write: () => Promise<void>): Promise<void> {
    this.dropLeases();
    await write();
    this.dropLeases();
    await outlast(await this.run(() => this.redis.storeOthersLease(this.leasesKey, this.holder)));
  }

  private dropLeases(): void {
    this.leasedFields.clear();
    this.leasedTokens.clear();
  }

  private batch(): Batch {
    if (this.next) return this.next;
    const batch: Batch = (this.next = { fields: new Map(), tokens: new Map() });
    setImmediate(() => {
      this.next = undefined;
      void this.send(batch);
    });
    return batch;
  }

  private async send(batch: Batch): Promise<void> {
    const fields = [...batch.fields];
    const tokens = [...batch.tokens];
    const sentAt = performance.now();
    const leaseMs = this.leaseMs > 0 && sentAt - this.lastSentAt < 2 * this.leaseMs ? this.leaseMs : 0;
    this.lastSentAt = sentAt;
    const until = sentAt + leaseMs;
    // each read's lease, when one is taken: settled (or failed) with the read
    const fieldLeases = fields.map(([id, read]) => leaseMs && this.leasedFields.lease(id, read.result.promise, until));
    const tokenLeases = tokens.map(([id, read]) => leaseMs && this.leasedTokens.lease(id, read.result.promise, until));
    const keys = [this.leasesKey, ...fields.map(([, f]) => f.hash), ...tokens.flatMap(([, t]) => t.keys)];
    const args = [fields.length, leaseMs, this.holder, ...fields.map(([, f]) => f.field), ...tokens.flatMap(([, t]) => t.fresh)];
    let answer: (string | null)[];
    try {
      answer = await this.run(() => this.redis.storeSharedReads(keys.length, ...keys, ...args));
    } catch (error) {
      // not used again, though it could be: what a failed read answers is the next batch's to say
      fields.forEach(([id, read], i) => {
        const lease = fieldLeases[i];
        if (lease) this.leasedFields.failed(id, lease);
        read.result.reject(error);
      });
      tokens.forEach(([id, read], i) => {
        const lease = tokenLeases[i];
        if (lease) this.leasedTokens.failed(id, lease);
        read.result.reject(error);
      });
      return;
    }
    fields.forEach(([id, read], i) => {
      const json = answer[i];
      let value: unknown;
      try {
        value = json === null ? undefined : JSON.parse(json);
      } catch (error) {
        const lease = fieldLeases[i];
        if (lease) this.leasedFields.failed(id, lease);
        read.result.reject(error);
        return;
      }
      read.result.resolve(value);
      const lease = fieldLeases[i];
      if (lease) this.leasedFields.settled(lease, value);
    });
    let at = fields.length;
    tokens.forEach(([, read], i) => {
      const value = answer.slice(at, (at += read.keys.length)) as string[];
      read.result.resolve(value);
      const lease = tokenLeases[i];
      if (lease) this.leasedTokens.settled(lease, value);
    });
  }
}

/**
 * Waits out a lease that had `ms` to run (0: none) when it was read: at least that long by this
 * process's monotonic clock, plus 1 ms for the rounding down of Redis's clock (a timer can fire early by what the event
 * loop's cached time lags, so the time left is measured, not assumed).
 */
const outlast = async (ms: number): Promise<void> => {
  if (ms <= 0) return;
  const until = performance.now() + ms + 1;
  for (let left = ms + 1; left > 0; left = until - performance.now()) await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
};
