import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { Store } from "../contract/store";
import type { PortContext } from "../contract/port-context";
import { scopeOf } from "../partners/scope-of";
import { inScope } from "../contract/party-scope";
import { TOKENS } from "../contract/injection-tokens";
import { ocpiTimestamp } from "../http/envelope";
import { PartnerClient } from "../client/partner-client";
import { PartnerRegistry } from "../partners/partner-registry";
import { ModuleCatalog } from "../modules/module-catalog";
import { ResponseCache } from "../cache/response-cache";
import { partyKey, type PartyRef } from "../protocol/types";
import { ciKey } from "../model/common-schemas";
import { Lease } from "./lease";
import { SyncStates } from "./sync-state";
import { syncTargetOf, syncableModules, type SyncTarget } from "./sync-targets";
import { PageRetry } from "./page-retry";

/** A crashed instance's pull is taken over by another one at most this long after its last renewal. */
const LOCK_TTL_MS = 30_000;
/** Rejected objects named in the log per pull; the rest are only counted. */
const REJECTIONS_LOGGED = 10;
/** Sessions lists require date_from: a full pull asks from the epoch. */
const EPOCH = "1970-01-01T00:00:00Z";

/** what started a pull: a `partners[].sync` tick, a request, or a partner's registration (SyncSpec.atRegistration) */
export type SyncTrigger = "schedule" | "on demand" | "registration";

export interface SyncOptions {
  /** ignore the watermark and pull everything */
  full?: boolean;
  trigger: SyncTrigger;
  /** the scheduled tick (epoch ms) a scheduled pull serves, for the log */
  tick?: number;
  /** stops the pull after the page under way (the gateway shutting down); the watermark stays */
  signal?: AbortSignal;
}

/** What one completed pull did. */
export interface SyncResult {
  partner: string;
  module: string;
  full: boolean;
  /** date_from sent to the partner; absent for a full pull of a list that does not require it */
  date_from?: string;
  /** objects stored through our RECEIVER port */
  objects: number;
  pages: number;
  /** objects skipped: invalid for the partner's version, or owned by a party that is not the partner's */
  rejected: number;
  /** page fetches repeated after a failure that may pass (partners[].sync_retry) */
  retries: number;
  duration_ms: number;
}

/** The request cannot be served as asked (unknown partner, module that cannot be pulled). */
export class SyncRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SyncRequestError";
  }
}

/** A pull of the same partner and module is under way, on this instance or another. */
export class SyncBusyError extends Error {
  constructor(partnerId: string, module: string) {
    super(`A ${module} pull from ${partnerId} is already running`);
    this.name = "SyncBusyError";
  }
}

/**
 * Pulls a partner's SENDER list into our RECEIVER port, page by page (a
 * page is stored before the next is fetched, so memory does not grow with
 * the list). Incremental from the watermark minus the partner's overlap;
 * the watermark (this pull's start) is saved only once the last page is
 * stored, so a pull that fails half-way is repeated from the old one next
 * time, and the upserts by id make the repetition harmless. A page that
 * fails in a way that may pass is fetched again within the pull's retry
 * budget (page-retry.ts). One pull per partner and module at a time across
 * instances, under a store lease.
 */
@injectable()
export class SyncPuller {
  private readonly states: SyncStates;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Logger) private readonly log: Logger,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
    private readonly catalog: ModuleCatalog,
    private readonly cache: ResponseCache,
  ) {
    this.states = new SyncStates(store);
  }

  async pull(partnerId: string, module: string, options: SyncOptions): Promise<SyncResult> {
    const target = this.targetOf(module);
    const record = await this.registry.get(partnerId);
    if (!record) throw new SyncRequestError(`partner: ${partnerId} is not a known partner`);
    if (record.status !== "registered") throw new SyncRequestError(`partner: ${partnerId} is not registered (${record.status})`);
    const profile = this.registry.profileOf(record);
    const refusal = target.spec.refuses?.(profile.config);
    if (refusal) throw new SyncRequestError(`partner: ${partnerId} ${refusal}`);
    const lease = await Lease.acquire(this.store, `sync:${partnerId}:${module}`, LOCK_TTL_MS);
    if (!lease) throw new SyncBusyError(partnerId, module);
    const startedAt = Date.now();
    const run = { objects: 0, pages: 0, rejected: 0, retries: 0 };
    const logged = { partner: partnerId, module, trigger: options.trigger, tick: options.tick === undefined ? undefined : new Date(options.tick).toISOString() };
    try {
      const { watermark } = await this.states.get(partnerId, module);
      const full = options.full === true || watermark === undefined;
      const dateFrom = full ? (target.spec.dateFromRequired ? EPOCH : undefined) : ocpiTimestamp(new Date(watermark - profile.syncOverlapMs));
      const scope = await scopeOf(this.config, this.registry, record);
      const ctx: PortContext = { partnerId, party: target.party, version: record.version, scope };
      const reject = (id: string | undefined, problems: string) => {
        if (run.rejected++ < REJECTIONS_LOGGED) this.log.warn({ ...logged, id, problems }, "pulled object rejected");
      };
      const retry = new PageRetry(profile.syncRetry, options.signal, (event) => {
        run.retries = event.retry;
        this.log.warn({ ...logged, page: run.pages + 1, ...event }, "sync page failed; retrying");
      });
      for (const list of [target.spec, ...(target.spec.more ?? [])]) {
        const pages = this.partners.list(
          partnerId,
          module,
          list.type,
          { date_from: dateFrom },
          (raw, problems) => reject(idOf(raw), problems),
          (fetch) => retry.run(fetch),
          list.path,
        );
        for await (const page of oneAhead(pages)) {
          if (lease.lost) throw new Error("the sync lock was lost (the store was unreachable or another instance took over)");
          if (options.signal?.aborted) throw new Error("the gateway is stopping");
          run.pages++;
          const storedBefore = run.objects;
          // The receiver rule for pushes, applied to pulls (core/partners/party-scope.ts); in page order per owner.
          const byOwner = new Map<string, { owner: PartyRef; objects: unknown[] }>();
          for (const object of page) {
            if (list.ignore?.(object)) continue;
            const owner = list.owner ? list.owner(object, scope.parties) : ownerOf(object);
            if (!owner || !inScope(scope, owner)) reject(idOf(object), "owned by a party that is not the partner's");
            else {
              const key = partyKey(owner);
              const group = byOwner.get(key);
              if (group) group.objects.push(object);
              else byOwner.set(key, { owner, objects: [object] });
            }
          }
          // A page is stored in one batch (SQLite: one transaction): an owner's objects in one call where the
          // port takes them so, else side by side (Redis: pipelined), those with the same id one after another
          // in page order.
          await this.store.batch(async () => {
            for (const { owner, objects } of byOwner.values()) {
              if (list.upsertAll && (await list.upsertAll(target.port, owner, objects, ctx))) run.objects += objects.length;
              else
                await inLanes(objects, (object) => ciKey(idOf(object) ?? ""), async (object) => {
                  await list.upsert(target.port, owner, object, ctx);
                  run.objects++;
                });
            }
          });
          // Upserts bypass the receiver routes, which invalidate the cache themselves; per page, so a long pull leaves nothing stale behind.
          if (run.objects > storedBefore) await this.cache.invalidate(module);
        }
      }
      if (lease.lost) throw new Error("the sync lock was lost before the pull could be committed");
      await this.states.completed(partnerId, module, startedAt);
      const result: SyncResult = { partner: partnerId, module, full, date_from: dateFrom, ...run, duration_ms: Date.now() - startedAt };
      this.log.info({ ...logged, full, dateFrom, ...run, ms: result.duration_ms }, "sync pull completed");
      return result;
    } catch (error) {
      this.log.warn({ ...logged, ...run, ms: Date.now() - startedAt, error: (error as Error).message }, "sync pull failed; the watermark stays");
      throw error;
    } finally {
      await lease.release();
    }
  }

  private targetOf(module: string): SyncTarget {
    const target = syncTargetOf(this.catalog.served, module);
    if (!target)
      throw new SyncRequestError(
        `module: ${module} cannot be pulled: no ${module} RECEIVER with sync support is served (syncable: ${syncableModules(this.catalog.served).join(", ") || "none"})`,
      );
    return target;
  }
}

/**
 * The pages of `pages`, the next one fetched while the current one is
 * stored: memory holds two pages at most, and the pull does not wait for the
 * partner between pages. A failed fetch surfaces when its page's turn comes.
 */
async function* oneAhead<T>(pages: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = pages[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    for (;;) {
      const result = await next;
      if (result.done) return;
      next = iterator.next();
      // a fetch that fails while nobody waits for it yet is not an unhandled rejection: it is awaited at its turn
      next.catch(() => undefined);
      yield result.value;
    }
  } finally {
    // the pull stopped early (failure, lost lease, shutdown): end the partner's list too, after the fetch under way
    await next.then(() => iterator.return?.(), () => undefined);
  }
}

/** Objects of one page stored at the same time, at most this many. */
const PAGE_LANES = 32;

/**
 * Runs `store` for every item, at most PAGE_LANES at a time; items with the
 * same key one after another, in their order. Resolves when all are done;
 * after the first failure no new item is started, and it rejects with that
 * failure once those under way have ended.
 */
const inLanes = async <T>(items: readonly T[], keyOf: (item: T) => string, store: (item: T) => Promise<void>): Promise<void> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const queue = [...groups.values()];
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    for (let group = queue[next++]; group && !failure; group = queue[next++])
      for (const item of group) {
        if (failure) return;
        try {
          await store(item);
        } catch (error) {
          failure ??= { error };
        }
      }
  };
  await Promise.all(Array.from({ length: Math.min(PAGE_LANES, queue.length) }, lane));
  if (failure) throw failure.error;
};

const ownerOf = (object: unknown): PartyRef | undefined => {
  const { country_code, party_id } = (object ?? {}) as Record<string, unknown>;
  return typeof country_code === "string" && typeof party_id === "string"
    ? { country_code: country_code.toUpperCase(), party_id: party_id.toUpperCase() }
    : undefined;
};

/** The object's id for log lines (ids only: objects can carry personal data). */
const idOf = (object: unknown): string | undefined => {
  const { id, uid, terminal_id } = (object ?? {}) as Record<string, unknown>;
  return typeof id === "string" ? id : typeof uid === "string" ? uid : typeof terminal_id === "string" ? terminal_id : undefined;
};
