import type { Logger } from "pino";
import { freshToken } from "./generations";
import { createRedisClient, type RedisClient, type RedisTarget } from "../store/redis-connection";
import type { SharedReads } from "../contract/store";
import type { Staged } from "../contract/change-feed";

// A cache command that takes longer than this is treated as Redis being unavailable: the request goes on without it.
const COMMAND_TIMEOUT_MS = 250;
const CONNECT_TIMEOUT_MS = 1000;
// After a failed command Redis is left alone this long (not retried on every request), unless the connection comes back first.
const RETRY_AFTER_MS = 1000;

// KEYS are the tokens of one module, which share its hash tag: one cluster slot.
// Reads the generation tokens of KEYS, creating absent ones from ARGV, so a
// Redis that lost its data (restart without persistence) starts new generations
// instead of reviving old ones.
const GENERATIONS_LUA = `
local out = {}
for i, key in ipairs(KEYS) do
  local token = redis.call('GET', key)
  if not token then
    token = ARGV[i]
    redis.call('SET', key, token)
  end
  out[i] = token
end
return out`;

interface Scripts {
  cacheGenerations(count: number, ...keysThenTokens: string[]): Promise<string[]>;
}

/**
 * The shared tier of the response cache, and the generation tokens every
 * instance builds its keys on. Every method swallows Redis failures: the
 * cache must never fail a request. Commands are not queued while the
 * connection is down (they fail at once), and time out quickly. The
 * degradation is logged once, and the recovery once.
 *
 * Renewals (invalidations) that could not reach Redis are remembered and
 * written when it is back, before the tier is used again; until then this
 * instance serves from its own tier and the adapters.
 */
export class RedisTier {
  private readonly redis: RedisClient & Scripts;
  private readonly pending = new Set<string>();
  private available = true;
  private retryAt = 0;
  private flushing?: Promise<void>;
  private closing = false;
  /** reads of generations of the next batch, by their keys (without shared reads) */
  private readonly nextGenerations = new Map<string, Promise<string[] | undefined>>();

  /**
   * `shared`: the store's batched reads when the tier is on the store's Redis
   * (one server, not a cluster), so a batch's generation tokens and the
   * store's registration generation go in one script, one round trip.
   */
  constructor(
    target: RedisTarget,
    private readonly prefix: string,
    private readonly log: Logger,
    private readonly shared?: SharedReads,
  ) {
    this.redis = createRedisClient(target, {
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    }) as RedisClient & Scripts;
    this.redis.defineCommand("cacheGenerations", { lua: GENERATIONS_LUA });
    this.redis.on("error", (error: Error) => this.failed(error));
    this.redis.on("close", () => this.failed());
    this.redis.on("ready", () => {
      this.retryAt = 0;
      void this.flush();
    });
  }

  /** Keys of one module share a hash tag, so they stay in one Redis Cluster slot. */
  key(module: string, ...parts: string[]): string {
    return `${this.prefix}{${module}}:${parts.join(":")}`;
  }

  /**
   * The shared generation tokens of `keys` (of one module), or undefined
   * when Redis cannot be used now. One read shared by the requests that
   * arrive together: it starts in the check phase after the I/O that
   * brought them, so after each of them arrived, and sees every
   * invalidation that completed before (on any instance). A request
   * arriving once the read has started waits for the next one. On the
   * store's Redis the read is one of the store's shared reads, on the same
   * round trip as the registration generation.
   */
  generations(keys: string[], id = keys.join("\n")): Promise<string[] | undefined> {
    if (this.shared) return this.usable(true) ? this.sharedGenerations(this.shared, keys, id) : Promise.resolve(undefined);
    let next = this.nextGenerations.get(id);
    if (!next) {
      next = new Promise((resolve) =>
        setImmediate(() => {
          this.nextGenerations.delete(id);
          resolve(this.readGenerations(keys));
        }),
      );
      this.nextGenerations.set(id, next);
    }
    return next;
  }

  private async readGenerations(keys: string[]): Promise<string[] | undefined> {
    if (!this.usable()) return undefined;
    try {
      const tokens = await this.redis.cacheGenerations(keys.length, ...keys, ...keys.map(() => freshToken()));
      this.succeeded();
      return tokens;
    } catch (error) {
      this.failed(error as Error);
      return undefined;
    }
  }

  /**
   * What `generations` answers now when that needs no waiting: with shared reads, a leased batch's tokens
   * that came in (SharedReads.heldTokens); else undefined (then `generations`).
   */
  heldGenerations(id: string): string[] | undefined {
    return this.shared && this.usable(true) ? this.shared.heldTokens(id) : undefined;
  }

  /** One promise per batch and keys (as without shared reads), not one per request. */
  private readonly sharedBatches = new Map<string, { read: Promise<string[]>; tokens: Promise<string[] | undefined> }>();

  private sharedGenerations(shared: SharedReads, keys: string[], id: string): Promise<string[] | undefined> {
    const read = shared.tokens(keys, freshToken, id);
    let batch = this.sharedBatches.get(id);
    if (batch?.read !== read) {
      batch = {
        read,
        tokens: read.then(
          (tokens) => (this.succeeded(), tokens),
          (error: unknown) => (this.failed(error as Error), undefined),
        ),
      };
      this.sharedBatches.set(id, batch);
    }
    return batch.tokens;
  }

  /** The stored text, or undefined on a miss or when Redis cannot be used now. */
  async get(key: string): Promise<string | undefined> {
    if (!this.usable()) return undefined;
    try {
      const value = await this.redis.get(key);
      this.succeeded();
      return value ?? undefined;
    } catch (error) {
      this.failed(error as Error);
      return undefined;
    }
  }

  async set(key: string, value: () => string, ttlMs: number): Promise<void> {
    if (!this.usable()) return;
    try {
      await this.redis.set(key, value(), "PX", Math.max(1, Math.round(ttlMs)));
      this.succeeded();
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /**
   * New tokens for `keys` on every instance; kept for later when Redis
   * cannot be reached now. `done` settles when they are written (or kept).
   * On the store's connection, with nothing pending, they are sent at once
   * and `sent` settles at once: a command sent after this call on that
   * connection (an outbox enqueue) is answered after them. Otherwise `sent`
   * is `done`.
   */
  renew(keys: string[]): Staged {
    if (this.shared?.ready && this.pending.size === 0 && Date.now() >= this.retryAt) {
      const done = this.setNow(keys);
      return { sent: Promise.resolve(), done };
    }
    for (const key of keys) this.pending.add(key);
    const done = this.flush();
    return { sent: done, done };
  }

  /** Sends the SETs in this call (SharedReads.setToken sends at once); what fails is kept for later, as by flush(). */
  private async setNow(keys: string[]): Promise<void> {
    try {
      await this.setTokens(keys);
      this.succeeded();
    } catch (error) {
      for (const key of keys) this.pending.add(key);
      this.failed(error as Error);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.redis.disconnect();
  }

  /** `generations`: for generation tokens, which go on the store's connection when shared */
  private usable(generations = false): boolean {
    if (!(generations ? this.tokensReady() : this.redis.status === "ready") || Date.now() < this.retryAt) return false;
    if (this.pending.size === 0) return true;
    void this.flush();
    return false;
  }

  /** Writes the pending renewals, including those added meanwhile; one run at a time. */
  private flush(): Promise<void> {
    this.flushing ??= this.writePending().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    while (this.tokensReady()) {
      // Taken out before writing: a key renewed again meanwhile is pending again and written in the next round.
      const keys = [...this.pending];
      this.pending.clear();
      try {
        await this.setTokens(keys);
      } catch (error) {
        for (const key of keys) this.pending.add(key);
        this.failed(error as Error);
        return;
      }
      if (this.pending.size === 0) {
        this.succeeded();
        return;
      }
    }
  }

  /**
   * A fresh token for each key, one SET per key: keys of different modules live in different cluster slots.
   * With the store's shared reads, on their connection: a read asked after an invalidation started is read
   * after its SET.
   */
  private setTokens(keys: string[]): Promise<unknown> {
    const shared = this.shared;
    return Promise.all(keys.map((key) => (shared ? shared.setToken(key, freshToken()) : this.redis.set(key, freshToken()))));
  }

  /** The connection generation tokens are read and set on is up: the store's with shared reads, else this tier's. */
  private tokensReady(): boolean {
    return this.shared ? this.shared.ready : this.redis.status === "ready";
  }

  private succeeded(): void {
    if (this.available) return;
    this.available = true;
    this.log.info("cache: Redis tier is back");
  }

  private failed(error?: Error): void {
    if (this.closing) return;
    this.retryAt = Date.now() + RETRY_AFTER_MS;
    if (!this.available) return;
    this.available = false;
    this.log.warn(
      { reason: error?.message ?? "connection closed" },
      "cache: Redis tier unavailable; serving from the in-process tier and the adapters until it is back",
    );
  }
}
