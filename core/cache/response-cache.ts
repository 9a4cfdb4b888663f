import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Logger } from "pino";
import type { CacheConfig, GatewayConfig } from "../../config/types";
import { DEFAULT_CACHE_CONFIG } from "../../config/types";
import { DEFAULT_REDIS_KEY_PREFIX } from "../../config/schema/store";
import type { OcpiReply, OcpiRequest, RouteSpec } from "../contract/module-plugin";
import { partyKey, type InterfaceRole, type PartyRef } from "../protocol/types";
import type { PageRequest } from "../contract/page";
import type { PartyScope } from "../contract/party-scope";
import { Generations } from "./generations";
import { RedisTier } from "./redis-tier";
import type { RedisTarget } from "../store/redis-connection";
import type { Store } from "../contract/store";
import type { SharedReads } from "../contract/store";
import type { Staged } from "../contract/change-feed";

interface LocalEntry {
  /** the generation the answer was stored under; a different current generation means it was invalidated */
  token: string;
  reply: OcpiReply;
}

interface SharedEntry {
  expiresAt: number;
  reply: OcpiReply;
}

/**
 * Read-through cache of sender GET answers, so a partner crawling every
 * Location does not reach a slow backend for each page. It keeps the
 * canonical answer (before version translation and envelope, which the
 * kernel still does per request) in process (lru-cache) and, when a Redis is
 * configured, in Redis for every instance.
 *
 * Keys: module, our party, interface role, route path with its parameters
 * and the list parameters, plus the generation tokens of the module and of
 * the module and party. Invalidation renews a token (shared through Redis),
 * so it reaches every instance without deleting keys. Answers do not depend
 * on the calling partner's version: one entry serves them all; a route marked
 * `per-scope` (Sessions, CDRs) also keys by the partner's scope.
 *
 * Nothing here can fail a request: when Redis is unavailable the
 * in-process tier and the adapters serve (see RedisTier).
 */
export class ResponseCache {
  private readonly local: LRUCache<string, LocalEntry>;
  private readonly generations = new Generations();
  // Concurrent misses of one key share one adapter call.
  private readonly inflight = new Map<string, Promise<OcpiReply>>();
  private readonly redis?: RedisTier;
  // What the kernel derives from a cached answer (its serialised bytes per version), kept with the answer
  // itself: the entry's reply object is replaced whenever the entry is, so the memo dies exactly with it.
  private readonly memos = new WeakMap<OcpiReply, Map<string, unknown>>();
  /** per module and party of ours: the names of its generation tokens and their Redis keys (a few per gateway) */
  private readonly pairs = new Map<string, { names: string[]; keys: string[]; id: string }>();
  /** per module and party: the Redis read of the current batch and the token it yields */
  private readonly batches = new Map<string, { read: Promise<string[] | undefined>; token: Promise<string> }>();

  /** `redis.shared`: the store's batched reads, when `target` is the store's Redis (see RedisTier) */
  constructor(
    private readonly config: CacheConfig,
    log: Logger,
    redis?: { target: RedisTarget; keyPrefix: string; shared?: SharedReads },
  ) {
    this.local = new LRUCache({ max: config.max_entries });
    if (redis) this.redis = new RedisTier(redis.target, `${redis.keyPrefix}cache:`, log, redis.shared);
  }

  /**
   * The cache a gateway config asks for: Redis is `cache.redis_url`, else the
   * store's Redis, whose batched reads (`opened`, a RedisStore on one server)
   * then carry the generation reads too.
   */
  static fromConfig(config: GatewayConfig, log: Logger, opened?: Store): ResponseCache {
    const cache = config.cache ?? DEFAULT_CACHE_CONFIG;
    const store = config.store;
    const keyPrefix = store.type === "sqlite" ? DEFAULT_REDIS_KEY_PREFIX : store.key_prefix;
    const target: RedisTarget | undefined = cache.redis_url
      ? { url: cache.redis_url }
      : cache.redis_nodes
        ? { nodes: cache.redis_nodes }
        : store.type === "redis"
          ? { url: store.url }
          : store.type === "redis-cluster"
            ? { nodes: store.nodes }
            : undefined;
    const shared = !cache.redis_url && !cache.redis_nodes && store.type === "redis" && opened?.kind === "redis" ? opened.sharedReads : undefined;
    return new ResponseCache(cache, log, cache.redis && target ? { target, keyPrefix, shared } : undefined);
  }

  /**
   * Runs a route through the cache: a GET the route marks `cache` reads
   * through; any write of a receiver interface invalidates the module
   * (coarse on purpose: a hub serves what partners push).
   */
  async serve(route: RouteSpec, request: OcpiRequest): Promise<OcpiReply> {
    const { module, role, party } = request.ctx;
    const ttlMs = this.ttlMs(module);
    if (ttlMs === 0) return route.handle(request);
    if (route.method === "GET") {
      // An answer for several of our parties (party-ports.ts) would have to follow each one's invalidations: not cached.
      if (!route.cache || request.port.parties) return route.handle(request);
      const get = { module, role, party, params: request.params, page: request.page, scope: request.port.scope };
      const key = partyKey(party);
      return this.readThrough(module, key, this.localKey(route, get, key), ttlMs, () => route.handle(request));
    }
    if (role !== "RECEIVER") return route.handle(request);
    try {
      return await route.handle(request);
    } finally {
      // Also after a failed write: it may have changed something before failing.
      await this.invalidate(module);
    }
  }

  /**
   * The current cached answer of a GET the route caches, or undefined when
   * this process has none (nothing is loaded: serve() does that). For the
   * kernel's fast path (core/host/cached-get.ts): not a lookup until the
   * kernel serves the reply and says so with peekServed(). Without Redis
   * the answer is known at once and is not wrapped in a promise (each one
   * costs the request a share of its few microseconds). `generation`: what
   * generation() answered for the module and party, asked earlier (so its
   * read from Redis goes with the registration generation's); it must
   * have been asked after the request arrived.
   */
  peek(route: RouteSpec, get: CachedGet, generation?: string | Promise<string>): OcpiReply | undefined | Promise<OcpiReply | undefined> {
    if (route.method !== "GET" || !route.cache || this.ttlMs(get.module) === 0) return undefined;
    const party = partyKey(get.party);
    const current = (token: string) => {
      const hit = this.local.get(this.localKey(route, get, party));
      return hit?.token === token ? hit.reply : undefined;
    };
    const token = generation ?? this.generation(get.module, get.party);
    return typeof token === "string" ? current(token) : token.then(current);
  }

  /**
   * The current generation of the answers of `module` for our `party`:
   * read from Redis (with the requests that arrive together) when there is
   * one, else this process's view, known at once.
   */
  generation(module: string, party: PartyRef): string | Promise<string> {
    // not cached: nothing to read (peek() answers undefined)
    if (this.ttlMs(module) === 0) return "";
    const key = partyKey(party);
    return this.redis ? this.currentToken(this.redis, module, key) : this.localToken(module, key);
  }

  /**
   * What generation() answers now when it is known without waiting: at once
   * without Redis; with Redis, when the tokens generation() would wait for
   * came in already (a leased batch's: RedisTier.heldGenerations), taken
   * over as generation() takes them; undefined when it would wait (then
   * generation()). They are taken over unconditionally: a renewal on this
   * instance drops the leases (SharedReads.setToken) or leaves the tier
   * unusable until it is written, so tokens held now were read after it.
   */
  generationNow(module: string, party: PartyRef): string | undefined {
    if (this.ttlMs(module) === 0) return "";
    const key = partyKey(party);
    const redis = this.redis;
    if (!redis) return this.localToken(module, key);
    const pair = this.pairs.get(`${module}\n${key}`);
    const held = pair && redis.heldGenerations(pair.id);
    if (!pair || !held) return undefined;
    pair.names.forEach((name, i) => this.generations.adopt(name, held[i], this.generations.epoch(name)));
    return this.localToken(module, key);
  }

  /** A reply peek() found was served: a hit (counted by core/metrics/instrument.ts; nothing to do here). */
  peekServed(_module: string): void {}

  /**
   * Drops the cached answers of `module` (only those of `owner`'s data
   * when given) on this instance and, through Redis, on every other. Call it
   * after a change that does not pass through a receiver route or the
   * ChangeFeed, e.g. sync upserts into a receiver adapter. Never throws.
   */
  async invalidate(module: string, owner?: PartyRef): Promise<void> {
    await this.invalidation(module, owner).done;
  }

  /**
   * invalidate() for the ChangeFeed, whose later listeners need only wait
   * until it is `sent`: this instance's entries are dropped at once, and
   * the shared renewal is sent before anything the store sends on its
   * connection after this call (RedisTier.renew), so a push the outbox
   * queues next is never delivered before it. `done` is invalidate().
   */
  invalidation(module: string, owner?: PartyRef): Staged {
    if (this.ttlMs(module) === 0) return NOTHING_TO_RENEW;
    const name = owner ? generationName(module, partyKey(owner)) : module;
    this.generations.renew(name);
    return this.redis?.renew([this.redis.key(module, "gen", name)]) ?? NOTHING_TO_RENEW;
  }

  async close(): Promise<void> {
    await this.redis?.close();
  }

  /**
   * The memo of an answer this cache served (undefined for one it did not):
   * what is derived from the answer alone, e.g. its serialised form in one
   * version, computed once per entry. An invalidated or expired entry is
   * never served again, and its memo goes with it.
   */
  memo(reply: OcpiReply): Map<string, unknown> | undefined {
    return this.memos.get(reply);
  }

  private ttlMs(module: string): number {
    return Math.max(0, Math.round((this.config.ttl_seconds[module] ?? 0) * 1000));
  }

  /** Module, our party, interface role, route path with its parameters and the list parameters (and the scope of a per-scope route). */
  private localKey(route: RouteSpec, get: CachedGet, party: string): string {
    return `${get.module}|${party}|${get.role}|${requestKey(route, get)}`;
  }

  private async readThrough(module: string, party: string, localKey: string, ttlMs: number, load: () => Promise<OcpiReply>): Promise<OcpiReply> {
    const token = this.redis ? await this.currentToken(this.redis, module, party) : this.localToken(module, party);
    const hit = this.local.get(localKey);
    if (hit?.token === token) return hit.reply;
    const flightKey = `${localKey}|${token}`;
    const running = this.inflight.get(flightKey);
    if (running) return running;
    const flight = this.fill(module, localKey, token, ttlMs, load).finally(() => this.inflight.delete(flightKey));
    this.inflight.set(flightKey, flight);
    return flight;
  }

  /** A miss in process: the Redis tier, else the adapter (through the route), stored in both tiers. */
  private async fill(module: string, localKey: string, token: string, ttlMs: number, load: () => Promise<OcpiReply>): Promise<OcpiReply> {
    const redis = this.redis;
    const sharedKey = redis?.key(module, token, localKey);
    const shared = redis && sharedKey ? parseShared(await redis.get(sharedKey)) : undefined;
    if (shared) {
      // lru-cache reads a TTL of 0 as "never expires": at least 1 ms.
      this.local.set(localKey, { token, reply: shared.reply }, { ttl: Math.max(1, shared.expiresAt - Date.now()) });
      this.memos.set(shared.reply, new Map());
      return shared.reply;
    }
    const reply = await load();
    this.local.set(localKey, { token, reply }, { ttl: ttlMs });
    this.memos.set(reply, new Map());
    if (redis && sharedKey) {
      const expiresAt = Date.now() + ttlMs;
      await redis.set(sharedKey, () => JSON.stringify({ expiresAt, reply } satisfies SharedEntry), ttlMs);
    }
    return reply;
  }

  /**
   * The module's and the module-and-party's generation tokens, from Redis
   * when it can be used (RedisTier.generations: one read per batch of
   * requests), else this process's view; one promise per batch, shared by
   * its requests. A token read is taken over unless the name was renewed
   * here since the batch's first request asked (Generations.adopt).
   */
  private currentToken(redis: RedisTier, module: string, party: string): Promise<string> {
    const id = `${module}\n${party}`;
    let pair = this.pairs.get(id);
    if (!pair) {
      const names = [module, generationName(module, party)];
      const keys = names.map((name) => redis.key(module, "gen", name));
      this.pairs.set(id, (pair = { names, keys, id: keys.join("\n") }));
    }
    const read = redis.generations(pair.keys, pair.id);
    let batch = this.batches.get(id);
    if (batch?.read !== read) {
      const { names } = pair;
      const epochs = names.map((name) => this.generations.epoch(name));
      const token = read.then((shared) => {
        if (shared) names.forEach((name, i) => this.generations.adopt(name, shared[i], epochs[i]));
        return this.localToken(module, party);
      });
      this.batches.set(id, (batch = { read, token }));
    }
    return batch.token;
  }

  /** This process's view of the module's and the module-and-party's generation tokens. */
  private localToken(module: string, party: string): string {
    return `${this.generations.token(module)}.${this.generations.token(generationName(module, party))}`;
  }
}

const NOTHING_TO_RENEW: Staged = { sent: Promise.resolve(), done: Promise.resolve() };

const generationName = (module: string, party: string): string => `${module}:${party}`;

/** What a cached GET's answer is kept under, besides the route: serve() takes it from the request. */
export interface CachedGet {
  module: string;
  role: InterfaceRole;
  /** the party of ours the request is addressed to */
  party: PartyRef;
  params: Record<string, string>;
  page: PageRequest;
  scope: PartyScope;
}

/** A scope's part of a per-scope key, once per scope object (the kernel keeps one per partner record). */
const scopeKeys = new WeakMap<PartyScope, string>();
const scopeKey = (scope: PartyScope): string => {
  let key = scopeKeys.get(scope);
  if (key === undefined) scopeKeys.set(scope, (key = createHash("sha256").update(JSON.stringify(scope)).digest("base64url")));
  return key;
};

/** The route path with its parameters and, for lists, the parsed list parameters (so equivalent spellings share an entry). */
const requestKey = (route: RouteSpec, get: CachedGet): string => {
  const params = Object.keys(get.params)
    .sort()
    .map((name) => `${name}=${encodeURIComponent(get.params[name])}`)
    .join("&");
  // A per-scope answer is kept per scope, never served to a partner that may see other objects.
  const scope = route.cache === "per-scope" ? `|${scopeKey(get.scope)}` : "";
  if (!route.paginated) return `${route.path}?${params}${scope}`;
  const { offset, limit, dateFrom, dateTo } = get.page;
  return `${route.path}?${params}${scope}|${offset},${limit},${dateFrom ?? ""},${dateTo ?? ""}`;
};

/** An entry from Redis that is whole and not expired, else undefined (a corrupt entry is a miss). */
const parseShared = (text: string | undefined): SharedEntry | undefined => {
  if (text === undefined) return undefined;
  try {
    const entry = JSON.parse(text) as SharedEntry;
    return typeof entry.expiresAt === "number" && entry.expiresAt > Date.now() && entry.reply ? entry : undefined;
  } catch {
    return undefined;
  }
};
