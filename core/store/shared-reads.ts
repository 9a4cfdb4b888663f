import type { RedisClient } from "./redis-connection";

/**
 * How long the answers of a leased batch are used (SharedReads): the
 * store's `generation_lease_ms`. Off unless set: every write of a generation
 * waits out the leases, so a publisher of changes one after another (a
 * poller) is held to one change per lease while an instance, this one
 * included (its outbox worker reads the registration generation), is busy
 * reading (bench/RESULTS.md: pushes on Redis 5,058 → 2,580 deliveries/s
 * with a 5 ms lease).
 */
export const DEFAULT_GENERATION_LEASE_MS = 0;

/**
 * The store collection whose values key is the lease: a plain string with an
 * expiry that every lease extends, never read as a collection. The outbox's
 * enqueue script reads its remaining time too (core/outbox/outbox.ts).
 */
export const GENERATION_LEASE = "generation-lease";

// The reads of one batch in one script. KEYS[1] the lease, extended to ARGV[2] ms unless that is 0 (or it
// has longer to run); then ARGV[1] hash fields (KEYS[i + 1], field ARGV[i + 2]), then generation tokens,
// each created from its ARGV when absent (see core/cache/redis-tier.ts).
const SHARED_READS_LUA = `
local fields, lease = tonumber(ARGV[1]), tonumber(ARGV[2])
if lease > 0 and redis.call('PTTL', KEYS[1]) < lease then redis.call('SET', KEYS[1], '1', 'PX', lease) end
local out = {}
for i = 1, fields do out[i] = redis.call('HGET', KEYS[i + 1], ARGV[i + 2]) end
for i = fields + 1, #KEYS - 1 do
  local token = redis.call('GET', KEYS[i + 1])
  if not token then
    token = ARGV[i + 2]
    redis.call('SET', KEYS[i + 1], token)
  end
  out[i] = token
end
return out`;

// A generation token KEYS[1] set to ARGV[1]; answers how long the lease KEYS[2] has to run (ms, < 0: none).
const SET_GENERATION_LUA = `
redis.call('SET', KEYS[1], ARGV[1])
return redis.call('PTTL', KEYS[2])`;

type Client = RedisClient & {
  storeSharedReads(count: number, ...keysThenArgs: (string | number)[]): Promise<(string | null)[]>;
  storeSetGeneration(key: string, lease: string, token: string): Promise<number>;
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

/** A leased batch's answer to one read, used by readers asking before `until` (performance.now()). */
interface Leased<T> {
  until: number;
  answer: Promise<T>;
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
 * in Redis: the lease key, expiring `leaseMs` after the script ran. Readers
 * asking within `leaseMs` of the batch being sent take its answers instead
 * of waiting for a round trip of their own. That stays exact because every
 * write of a generation waits out the leases before it completes:
 * `setToken` (the cache's invalidations) and `writing` (the registration
 * generation's renewal) settle only once the lease key they saw after the
 * write has expired, and the outbox queues a message behind
 * a lease as not due before that (core/outbox/outbox.ts). A batch sent at
 * t0 ran its script at tr ≥ t0: a write before tr is in its answers, and a
 * write after tr completes after tr + leaseMs ≥ t0 + leaseMs, past which
 * nobody takes them. So a request that arrives after a write completed
 * (a token revoked, an answer invalidated, on any instance) is never
 * served under what that write replaced. Writers wait only while some
 * instance is busy reading, and at most `leaseMs`. Durations, not clock
 * readings, cross processes here (Redis's expiry and this process's
 * monotonic clock), so instances need no common clock. A write of this
 * instance drops its lease as it starts, so what this instance reads after
 * its own write began is read after it; a connection that closes drops its
 * lease at once.
 *
 * A store entry read here fails as RedisStore.get fails (StoreUnavailableError
 * on an outage); the tokens' reader decides for itself what a failure means.
 */
export class SharedReads {
  private next?: Batch;
  /** the answers of leased batches, by the ids their readers asked under (one per read: a few per module and party) */
  private readonly leasedFields = new Map<string, Leased<unknown>>();
  private readonly leasedTokens = new Map<string, Leased<string[]>>();
  private lastSentAt = -Infinity;
  private readonly leaseKey: string;
  private readonly redis: Client;

  /** `redis`: the store's connection, on which this defines its scripts */
  constructor(
    redis: RedisClient,
    private readonly run: <R>(command: () => Promise<R>) => Promise<R>,
    private readonly valuesKey: (collection: string) => string,
    private readonly leaseMs = DEFAULT_GENERATION_LEASE_MS,
  ) {
    this.leaseKey = valuesKey(GENERATION_LEASE);
    redis.defineCommand("storeSharedReads", { lua: SHARED_READS_LUA });
    redis.defineCommand("storeSetGeneration", { numberOfKeys: 2, lua: SET_GENERATION_LUA });
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
    const held = heldIn(this.leasedFields, id);
    if (held) return held as Promise<T | undefined>;
    const fields = this.batch().fields;
    let read = fields.get(id);
    if (!read) fields.set(id, (read = { hash, field: key, result: waiting() }));
    return read.result.promise as Promise<T | undefined>;
  }

  /**
   * The generation tokens stored under `keys` (string keys, absent ones set
   * to `fresh()` each), read in the next batch (or the leased one); `id`
   * names the keys (the same keys, the same id).
   */
  tokens(keys: string[], fresh: () => string, id = keys.join("\n")): Promise<string[]> {
    const held = heldIn(this.leasedTokens, id);
    if (held) return held;
    const tokens = this.batch().tokens;
    let read = tokens.get(id);
    if (!read) tokens.set(id, (read = { keys, fresh: keys.map(() => fresh()), result: waiting() }));
    return read.result.promise;
  }

  /**
   * Sets a generation token, on the connection the batches go on: a batch
   * asked for after this was called is read after it (Redis answers one
   * connection's commands in order), so it never reads the token this
   * replaces. Settles once the leases taken before it have ended. Fails as
   * the tokens' batches fail.
   */
  async setToken(key: string, token: string): Promise<void> {
    this.dropLeases();
    await outlast(await this.run(() => this.redis.storeSetGeneration(key, this.leaseKey, token)));
  }

  /**
   * A write of a generation kept in the store (the registration generation):
   * a read asked after it started waits for a batch sent after it, and it
   * settles once the leases taken before it have ended.
   */
  async writing(write: () => Promise<void>): Promise<void> {
    this.dropLeases();
    await write();
    await outlast(await this.run(() => this.redis.pttl(this.leaseKey)));
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
    const fields = [...batch.fields.values()];
    const tokens = [...batch.tokens.values()];
    const sentAt = performance.now();
    const leaseMs = this.leaseMs > 0 && sentAt - this.lastSentAt < 2 * this.leaseMs ? this.leaseMs : 0;
    this.lastSentAt = sentAt;
    if (leaseMs) {
      const until = sentAt + leaseMs;
      for (const [id, read] of batch.fields) this.leasedFields.set(id, { until, answer: read.result.promise });
      for (const [id, read] of batch.tokens) this.leasedTokens.set(id, { until, answer: read.result.promise });
    }
    const keys = [this.leaseKey, ...fields.map((f) => f.hash), ...tokens.flatMap((t) => t.keys)];
    const args = [fields.length, leaseMs, ...fields.map((f) => f.field), ...tokens.flatMap((t) => t.fresh)];
    let answer: (string | null)[];
    try {
      answer = await this.run(() => this.redis.storeSharedReads(keys.length, ...keys, ...args));
    } catch (error) {
      // not used again, though it could be: what a failed read answers is the next batch's to say
      for (const [id, read] of batch.fields) if (this.leasedFields.get(id)?.answer === read.result.promise) this.leasedFields.delete(id);
      for (const [id, read] of batch.tokens) if (this.leasedTokens.get(id)?.answer === read.result.promise) this.leasedTokens.delete(id);
      for (const read of [...fields, ...tokens]) read.result.reject(error);
      return;
    }
    fields.forEach((read, i) => {
      const json = answer[i];
      try {
        read.result.resolve(json === null ? undefined : JSON.parse(json));
      } catch (error) {
        read.result.reject(error);
      }
    });
    let at = fields.length;
    for (const read of tokens) read.result.resolve(answer.slice(at, (at += read.keys.length)) as string[]);
  }
}

const heldIn = <T>(leased: Map<string, Leased<T>>, id: string): Promise<T> | undefined => {
  const held = leased.get(id);
  return held && performance.now() < held.until ? held.answer : undefined;
};

/**
 * Waits out a lease that had `ms` to run (PTTL; < 0: none) when it was read: at least that long by this
 * process's monotonic clock, plus 1 ms for PTTL's rounding down (a timer can fire early by what the event
 * loop's cached time lags, so the time left is measured, not assumed).
 */
const outlast = async (ms: number): Promise<void> => {
  if (ms <= 0) return;
  const until = performance.now() + ms + 1;
  for (let left = ms + 1; left > 0; left = until - performance.now()) await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
};
