import http from "node:http";
import type { Middleware } from "koa";
import type { Logger } from "pino";
import type { GatewayMetrics } from "./gateway-metrics";
import { bearerMatches } from "../http/bearer-auth";

/**
 * `GET /metrics` on the gateway's port, behind the admin token (`Authorization:
 * Bearer <server.admin_token>`); absent when there is no admin token, or
 * when `server.metrics.port` gives the metrics a port of their own.
 */
export const metricsRoute =
  (metrics: GatewayMetrics, adminToken: string): Middleware =>
  async (ctx, next) => {
    if (ctx.path !== "/metrics" || ctx.method !== "GET") return next();
    if (!bearerMatches(ctx.get("Authorization"), adminToken)) {
      ctx.status = 401;
      ctx.set("WWW-Authenticate", 'Bearer realm="ocpi-gateway metrics"');
      ctx.body = { status: "unauthorized" };
      return;
    }
    ctx.set("Content-Type", metrics.contentType);
    ctx.body = await metrics.text();
  };

/** `server.metrics.port`: a listener of its own serving only `GET /metrics`, without auth (bind it to a private interface). */
export const metricsServer = (metrics: GatewayMetrics, log: Logger): http.Server =>
  http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found: this port serves GET /metrics only\n");
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { "Content-Type": metrics.contentType }).end(text),
      (error: unknown) => {
        log.error({ err: error }, "metrics scrape failed");
        res.writeHead(500, { "Content-Type": "text/plain" }).end("metrics unavailable\n");
      },
    );
  });
