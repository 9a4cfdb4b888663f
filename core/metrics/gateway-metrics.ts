import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { ObservedRequest } from "../http/observed-request";
import { HourlyFigures } from "./hourly-figures";
import { DeferredCounter } from "./deferred-counter";

/** Seconds: from a cached answer (about 1 ms) to a partner's timeout. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
/** the label of a request no partner could be named for (no token, an unknown one) */
export const NO_PARTNER = "none";

/** A gauge read when scraped: `collect` sets its values (from the store, say) and may fail, leaving it empty. */
export type GaugeCollector = (set: (labels: Record<string, string>, value: number) => void) => Promise<void>;

/**
 * The gateway's Prometheus metrics (prom-client), one registry per gateway
 * (two gateways may share a process in tests). Labels are bounded: partner
 * ids from the config and the registry, served modules, HTTP methods, status
 * codes, adapter and port names; never object ids or tokens. What the
 * gateway does is counted where it happens (core/metrics/instrument.ts
 * wraps the services that do it); queue depths and sync lag are read from
 * the store when scraped.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly included: Registry[] = [];
  /** the last hour per partner, for the status page */
  readonly hourly = new HourlyFigures();

  private readonly requests = new DeferredCounter(this.registry, {
    name: "ocpi_requests_total",
    help: "Requests served, by partner, module, interface, HTTP method, HTTP status and OCPI status_code",
    labelNames: ["partner", "module", "interface", "method", "http_status", "status_code"] as const,
  });
  private readonly requestSeconds = new Histogram({
    name: "ocpi_request_duration_seconds",
    help: "Time to answer a request, by partner, module, interface and HTTP method",
    labelNames: ["partner", "module", "interface", "method"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly outbound = new Counter({
    name: "ocpi_outbound_requests_total",
    help: "Calls to partners, by partner, module and result (ok, or the failure: http, ocpi, timeout, unreachable, refused, malformed)",
    labelNames: ["partner", "module", "result"] as const,
    registers: [this.registry],
  });
  private readonly outboundSeconds = new Histogram({
    name: "ocpi_outbound_request_duration_seconds",
    help: "Time of calls to partners, by partner and module",
    labelNames: ["partner", "module"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly cache = new DeferredCounter(this.registry, {
    name: "ocpi_cache_requests_total",
    help: "Cacheable sender GETs by module and result: hit (served without the adapter) or miss (the adapter was asked)",
    labelNames: ["module", "result"] as const,
  });
  private readonly adapterCalls = new Counter({
    name: "ocpi_adapter_calls_total",
    help: "Calls of adapter ports, by adapter, port, method and result (ok or error)",
    labelNames: ["adapter", "port", "method", "result"] as const,
    registers: [this.registry],
  });
  private readonly adapterSeconds = new Histogram({
    name: "ocpi_adapter_call_duration_seconds",
    help: "Time of adapter port calls (the backend behind the gateway), by adapter, port and method",
    labelNames: ["adapter", "port", "method"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly syncPulls = new Counter({
    name: "ocpi_sync_pulls_total",
    help: "Sync pulls run by this instance, by partner, module and result (ok or failed)",
    labelNames: ["partner", "module", "result"] as const,
    registers: [this.registry],
  });
  private readonly syncLastResult = new Gauge({
    name: "ocpi_sync_last_success",
    help: "1 when the last sync pull this instance ran of the partner's module succeeded, 0 when it failed",
    labelNames: ["partner", "module"] as const,
    registers: [this.registry],
  });
  private readonly asyncOutcomes = new Counter({
    name: "ocpi_async_outcomes_total",
    help: "Outcomes of asynchronous requests (commands, charging profiles) delivered by this instance, by kind and outcome (ACCEPTED, REJECTED, TIMEOUT…)",
    labelNames: ["kind", "outcome"] as const,
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: "ocpi_gateway_" });
  }

  /** A gauge whose values are read when scraped. */
  gauge(name: string, help: string, labelNames: readonly string[], collect: GaugeCollector): void {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        // A failing read (the store down) leaves the gauge empty for this scrape: the scrape itself still answers.
        await collect((labels, value) => this.set(labels, value)).catch(() => undefined);
      },
    });
  }

  request(r: ObservedRequest): void {
    const partner = r.partner ?? NO_PARTNER;
    const method = METHODS.has(r.method) ? r.method : "OTHER";
    const iface = r.interface ?? "";
    const statusCode = r.statusCode === undefined ? "" : String(r.statusCode);
    this.requests.inc(`${partner}\u0000${r.module}\u0000${iface}\u0000${method}\u0000${r.httpStatus}\u0000${statusCode}`, () => ({
      partner,
      module: r.module,
      interface: iface,
      method,
      http_status: String(r.httpStatus),
      status_code: statusCode,
    }));
    this.requestSeconds.observe({ partner, module: r.module, interface: iface, method }, r.seconds);
    if (r.partner && r.module !== "admin") this.hourly.request(r.partner, isError(r), r.seconds);
  }

  outboundCall(partner: string, module: string, result: string, seconds: number): void {
    this.outbound.inc({ partner, module, result });
    this.outboundSeconds.observe({ partner, module }, seconds);
    this.hourly.outbound(partner, result === "ok", result);
  }

  cacheLookup(module: string, hit: boolean): void {
    const result = hit ? "hit" : "miss";
    this.cache.inc(`${module}\u0000${result}`, () => ({ module, result }));
  }

  adapterCall(adapter: string, port: string, method: string, failed: boolean, seconds: number): void {
    this.adapterCalls.inc({ adapter, port, method, result: failed ? "error" : "ok" });
    this.adapterSeconds.observe({ adapter, port, method }, seconds);
  }

  syncPull(partner: string, module: string, ok: boolean): void {
    this.syncPulls.inc({ partner, module, result: ok ? "ok" : "failed" });
    this.syncLastResult.set({ partner, module }, ok ? 1 : 0);
    this.hourly.sync(partner, module, ok);
  }

  asyncOutcome(kind: string, outcome: string): void {
    this.asyncOutcomes.inc({ kind, outcome });
  }

  /** The exposition text (`text/plain; version=0.0.4`). */
  /** Metrics a module counts itself (ModulePlugin.metrics), served with these. */
  include(registry: Registry): void {
    if (!this.included.includes(registry)) this.included.push(registry);
  }

  async text(): Promise<string> {
    const own = await this.registry.metrics();
    const theirs = await Promise.all(this.included.map((r) => r.metrics()));
    return [own, ...theirs].filter((t) => t.trim()).join("\n");
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** A request that failed on either layer: HTTP 4xx/5xx, or an OCPI status_code other than 1xxx. */
const isError = (r: ObservedRequest): boolean => r.httpStatus >= 400 || (r.statusCode !== undefined && (r.statusCode < 1000 || r.statusCode >= 2000));
