import { AsyncLocalStorage } from "node:async_hooks";
import { DEFAULT_CACHE_CONFIG, type GatewayConfig } from "../../config/types";
import type { Adapter } from "../contract/adapter";
import type { OcpiClient } from "../client/ocpi-client";
import { PartnerCallError } from "../client/ocpi-client";
import type { PartnerClient } from "../client/partner-client";
import type { ResponseCache } from "../cache/response-cache";
import type { PendingKind, PendingRequests } from "../async/pending-requests";
import type { Outbox } from "../outbox/outbox";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { Store } from "../contract/store";
import { SyncStates } from "../sync/sync-state";
import { SyncBusyError, SyncRequestError, type SyncPuller } from "../sync/sync-puller";
import { GatewayMetrics, NO_PARTNER } from "./gateway-metrics";

/**
 * Where the gateway's figures are taken: each service that does the work is
 * wrapped once, at composition (app/gateway.ts), so none of them knows about
 * metrics. Wrapping assigns the instance's own method; every holder of the
 * instance sees the counted one.
 */

/** Which partner and module an outbound call is made for, from the module call down to the HTTP call. */
const outboundScope = new AsyncLocalStorage<{ partner: string; module: string }>();

/** Calls to partners: counted and timed per HTTP call (a page of a list is one), by partner, module and result. */
export const instrumentOutbound = (metrics: GatewayMetrics, http: OcpiClient, partners: PartnerClient): void => {
  const call = http.call.bind(http);
  http.call = async (method, target, body) => {
    const scope = outboundScope.getStore();
    const started = process.hrtime.bigint();
    let result = "ok";
    try {
      return await call(method, target, body);
    } catch (error) {
      result = error instanceof PartnerCallError ? error.kind : "error";
      throw error;
    } finally {
      // the credentials handshake calls a partner before it is one of ours: partner none, module other
      metrics.outboundCall(scope?.partner ?? NO_PARTNER, scope?.module ?? "other", result, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
  const moduleCall = partners.call.bind(partners);
  partners.call = (partnerId, c) => outboundScope.run({ partner: partnerId, module: c.module }, () => moduleCall(partnerId, c));
  const send = partners.send.bind(partners);
  partners.send = (partnerId, request, objects) =>
    outboundScope.run({ partner: partnerId, module: "module" in request.target ? request.target.module : "callback" }, () => send(partnerId, request, objects));
  const list = partners.list.bind(partners);
  partners.list = <T>(partnerId: string, module: string, ...rest: unknown[]): AsyncGenerator<T[]> => {
    const pages = (list as (...args: unknown[]) => AsyncGenerator<T[]>)(partnerId, module, ...rest);
    const scope = { partner: partnerId, module };
    // each page is fetched when the generator is resumed: in the scope of this partner and module
    return {
      next: (...args: [] | [unknown]) => outboundScope.run(scope, () => pages.next(...args)),
      return: (value: any) => outboundScope.run(scope, () => pages.return(value)),
      throw: (error: unknown) => outboundScope.run(scope, () => pages.throw(error)),
      [Symbol.asyncIterator]() {
        return this;
      },
      [Symbol.asyncDispose]: () => outboundScope.run(scope, () => pages.return(undefined)).then(() => undefined),
    } as AsyncGenerator<T[]>;
  };
};

/** Cacheable sender GETs: a hit is an answer served without the adapter, a miss one the adapter was asked for. */
export const instrumentCache = (metrics: GatewayMetrics, cache: ResponseCache, config: GatewayConfig): void => {
  const serve = cache.serve.bind(cache);
  const ttls = (config.cache ?? DEFAULT_CACHE_CONFIG).ttl_seconds;
  cache.serve = async (route, request) => {
    const module = request.ctx.module;
    if (route.method !== "GET" || !route.cache || !(ttls[module] > 0)) return serve(route, request);
    let asked = false;
    try {
      return await serve({ ...route, handle: (r) => ((asked = true), route.handle(r)) }, request);
    } finally {
      // an error answer (a 404) is not kept, but it was a lookup: a miss when the adapter was asked
      metrics.cacheLookup(module, !asked);
    }
  };
  // a reply the kernel's fast path found with peek() and served (core/host/cached-get.ts)
  cache.peekServed = (module) => metrics.cacheLookup(module, true);
};

/**
 * Adapter ports: every method call timed and counted by adapter, port and
 * method, ok or error; `adapters` gets the counted ones in place.
 */
export const instrumentAdapters = (metrics: GatewayMetrics, adapters: Map<string, Adapter>): void => {
  for (const [name, adapter] of adapters) {
    const ports: Record<string, unknown> = {};
    for (const [portName, port] of Object.entries(adapter.ports)) ports[portName] = timedPort(metrics, name, portName, port as object);
    adapters.set(
      name,
      new Proxy(adapter, {
        get: (target, key) => {
          if (key === "ports") return ports;
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    );
  }
};

const timedPort = (metrics: GatewayMetrics, adapter: string, portName: string, port: object): object => {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      // `connect` hands the adapter its outcome sink: not a call to the backend
      if (typeof value !== "function" || typeof key !== "string" || key === "connect") return value;
      if (!wrapped.has(key)) {
        wrapped.set(key, (...args: unknown[]) => {
          const started = process.hrtime.bigint();
          const done = (failed: boolean) => metrics.adapterCall(adapter, portName, key, failed, Number(process.hrtime.bigint() - started) / 1e9);
          let result: unknown;
          try {
            result = value.apply(target, args);
          } catch (error) {
            done(true);
            throw error;
          }
          if (result instanceof Promise) {
            return result.then(
              (v) => (done(false), v),
              (error) => {
                done(true);
                throw error;
              },
            );
          }
          done(false);
          return result;
        });
      }
      return wrapped.get(key);
    },
  });
};

/** Pulls counted by result; a request that names nothing pullable, or a pull already running, is no pull. */
export const instrumentSync = (metrics: GatewayMetrics, puller: SyncPuller, pulled: Set<string>): void => {
  const pull = puller.pull.bind(puller);
  puller.pull = async (partnerId, module, options) => {
    try {
      const result = await pull(partnerId, module, options);
      pulled.add(`${partnerId}\u0000${module}`);
      metrics.syncPull(partnerId, module, true);
      return result;
    } catch (error) {
      if (!(error instanceof SyncBusyError) && !(error instanceof SyncRequestError)) {
        pulled.add(`${partnerId}\u0000${module}`);
        metrics.syncPull(partnerId, module, false);
      }
      throw error;
    }
  };
};

/** Outcomes of asynchronous requests as they are delivered: the result (ACCEPTED, REJECTED…), or TIMEOUT when nobody reported one. */
export const instrumentPending = (metrics: GatewayMetrics, pending: PendingRequests): void => {
  const register = pending.register.bind(pending);
  const done = new WeakSet<object>();
  pending.register = <T, R>(kind: PendingKind<T, R>) => {
    if (!done.has(kind)) {
      done.add(kind);
      const deliver = kind.deliver.bind(kind);
      kind.deliver = async (entry, outcome) => {
        await deliver(entry, outcome);
        const result = (outcome as { result?: unknown } | undefined)?.result;
        metrics.asyncOutcome(kind.name, entry.timedOut ? "TIMEOUT" : typeof result === "string" && /^[A-Z_]{1,40}$/.test(result) ? result : "OTHER");
      };
    }
    register(kind);
  };
};

/** The gauges read from the store when scraped: outbox depth and age, dead letters, sync lag, pending asynchronous requests. */
export const storeGauges = (
  metrics: GatewayMetrics,
  deps: { config: GatewayConfig; store: Store; outbox: Outbox; registry: PartnerRegistry; pending: PendingRequests; pulled: Set<string> },
): void => {
  const { config, outbox, registry, pending } = deps;
  const partnerIds = async () => [...new Set([...config.partners.map((p) => p.id), ...(await registry.list()).map((r) => r.id)])];
  metrics.gauge("ocpi_outbox_depth", "Messages waiting in the partner's outbox queue", ["partner"], async (set) => {
    for (const id of await partnerIds()) set({ partner: id }, (await outbox.pending(id, 1)).total);
  });
  metrics.gauge("ocpi_outbox_oldest_age_seconds", "Age of the oldest message waiting in the partner's queue (0: empty)", ["partner"], async (set) => {
    for (const id of await partnerIds()) {
      const head = await outbox.head(id);
      set({ partner: id }, head ? Math.max(0, (Date.now() - head.enqueuedAt) / 1000) : 0);
    }
  });
  metrics.gauge("ocpi_outbox_dead_letters", "Dead letters waiting for an operator, per partner", ["partner"], async (set) => {
    for (const id of await partnerIds()) set({ partner: id }, (await outbox.deadLetters(id, 0, 1)).total);
  });
  const states = new SyncStates(deps.store);
  metrics.gauge("ocpi_sync_lag_seconds", "Seconds since the start of the last completed pull of the partner's module (its watermark)", ["partner", "module"], async (set) => {
    const pairs = new Set(deps.pulled);
    for (const p of config.partners) for (const module of Object.keys(p.sync ?? {})) pairs.add(`${p.id}\u0000${module}`);
    for (const pair of pairs) {
      const [partner, module] = pair.split("\u0000");
      const { watermark } = await states.get(partner, module);
      if (watermark !== undefined) set({ partner, module }, Math.max(0, (Date.now() - watermark) / 1000));
    }
  });
  metrics.gauge("ocpi_async_pending", "Asynchronous requests (commands, charging profiles) waiting for their outcome, by kind", ["kind"], async (set) => {
    for (const kind of pending.kindNames()) set({ kind }, (await pending.count(kind)).pending);
  });
};
