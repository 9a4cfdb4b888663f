import type http from "node:http";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import type { DependencyContainer } from "tsyringe";
import type { GatewayConfig } from "../config/types";
import type { Adapter } from "../core/contract/adapter";
import type { Store } from "../core/contract/store";
import type { OperationsSurface } from "../core/host/http-app";
import { OcpiClient } from "../core/client/ocpi-client";
import { PartnerClient } from "../core/client/partner-client";
import { ResponseCache } from "../core/cache/response-cache";
import { PendingRequests } from "../core/async/pending-requests";
import { Outbox } from "../core/outbox/outbox";
import { PartnerRegistry } from "../core/partners/partner-registry";
import { SyncPuller } from "../core/sync/sync-puller";
import { GatewayMetrics } from "../core/metrics/gateway-metrics";
import { instrumentAdapters, instrumentCache, instrumentOutbound, instrumentPending, instrumentSync, storeGauges } from "../core/metrics/instrument";
import { metricsRoute, metricsServer } from "../core/metrics/metrics-route";
import { Readiness } from "../core/health/readiness";
import { healthRoutes } from "../core/health/health-routes";

/**
 * Running the gateway: metrics, readiness and the routes that show them
 * (README "Operating it"). Created once the adapters exist and before any
 * plugin is connected, so every call is counted from the first one.
 */
export class Operations {
  private server?: http.Server;

  constructor(
    readonly config: GatewayConfig,
    readonly metrics: GatewayMetrics,
    readonly readiness: Readiness,
    private readonly log: Logger,
  ) {}

  /**
   * Wraps the container's services to count what they do; `adapters` is
   * updated in place with counted ports. SyncPuller becomes a singleton
   * here, so scheduled and on-demand pulls go through the one counted instance.
   */
  static create(container: DependencyContainer, config: GatewayConfig, log: Logger, store: Store, adapters: Map<string, Adapter>): Operations {
    const metrics = new GatewayMetrics();
    instrumentOutbound(metrics, container.resolve(OcpiClient), container.resolve(PartnerClient));
    instrumentCache(metrics, container.resolve(ResponseCache), config);
    instrumentAdapters(metrics, adapters);
    const pending = container.resolve(PendingRequests);
    instrumentPending(metrics, pending);
    container.registerSingleton(SyncPuller);
    const pulled = new Set<string>();
    instrumentSync(metrics, container.resolve(SyncPuller), pulled);
    storeGauges(metrics, { config, store, outbox: container.resolve(Outbox), registry: container.resolve(PartnerRegistry), pending, pulled });
    container.registerInstance(GatewayMetrics, metrics);
    const ops = new Operations(config, metrics, Readiness.of(store, adapters, log), log);
    container.registerInstance(Operations, ops);
    return ops;
  }

  /** The HTTP app's part; `extra` adds routes that need what is served (the status page). */
  surface(extra: Middleware[] = []): OperationsSurface {
    const middleware: Middleware[] = [healthRoutes(this.readiness)];
    const token = this.config.server.admin_token;
    if (this.config.server.metrics?.port === undefined && token) middleware.push(metricsRoute(this.metrics, token));
    return { observe: (r) => this.metrics.request(r), middleware: [...middleware, ...extra] };
  }

  /** Starts the metrics listener when `server.metrics.port` is set; resolves with its port. */
  async listen(): Promise<number | undefined> {
    const settings = this.config.server.metrics;
    if (settings?.port === undefined) return undefined;
    const server = metricsServer(this.metrics, this.log);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(settings.port, settings.host, () => resolve());
    });
    return (server.address() as { port: number }).port;
  }

  /** SIGTERM: not ready from now on; waits `server.shutdown_delay_ms` for load balancers to notice before the listener closes. */
  async beginShutdown(): Promise<void> {
    this.readiness.stop();
    const delay = this.config.server.shutdown_delay_ms ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
