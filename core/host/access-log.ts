import type { Middleware } from "koa";
import type { Logger } from "pino";
import { requestScope, routeOfPath, type RequestScope } from "../http/request-scope";

/** One request as the access log saw it; what the metrics count (core/metrics). */
export interface ObservedRequest {
  /** the authenticated partner, or undefined (no or unknown token) */
  partner?: string;
  module: string;
  interface?: string;
  method: string;
  httpStatus: number;
  /** the envelope's status_code, when the answer was an envelope */
  statusCode?: number;
  seconds: number;
}

/** Paths asked every few seconds by monitoring: their access lines are debug, not info. */
const PROBE_PATHS = new Set(["/health", "/ready", "/metrics"]);

/**
 * The outermost middleware: opens the request's scope (partner, module,
 * ids: on every log line written while it is served, core/logging.ts) and
 * writes one access line per request, without headers or bodies (they carry
 * tokens and personal data), with its status, the envelope's status_code and
 * the duration; `observe` gets the same figures.
 */
export const accessLog =
  (log: Logger, modules: ReadonlySet<string>, observe?: (request: ObservedRequest) => void): Middleware =>
  (ctx, next) => {
    const route = routeOfPath(ctx.path, modules);
    const scope: RequestScope = { module: route.module, interface: route.interface };
    return requestScope.run(scope, async () => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const body = ctx.body as { status_code?: unknown } | undefined;
        const statusCode = typeof body === "object" && body !== null && typeof body.status_code === "number" ? body.status_code : undefined;
        const line = {
          method: ctx.method,
          path: ctx.path,
          interface: route.interface,
          status: ctx.status,
          statusCode,
          ms: Math.round(seconds * 10_000) / 10,
        };
        if (PROBE_PATHS.has(ctx.path)) log.debug(line, "request");
        else log.info(line, "request");
        scope.ended = true;
        observe?.({ partner: scope.partner, module: route.module, interface: route.interface, method: ctx.method, httpStatus: ctx.status, statusCode, seconds });
      }
    });
  };
