import type { Middleware } from "koa";
import type { Logger } from "pino";
import { routeOfPath, servedInScope, type RequestScope } from "../http/request-scope";
import type { ObservedRequest } from "../http/observed-request";

/** A request's scope once its path is known: module (a label, "unknown" included) and interface. */
export type RouteScope = RequestScope & { module: string };

/** Paths asked every few seconds by monitoring: their access lines are debug, not info. */
const PROBE_PATHS = new Set(["/health", "/ready", "/metrics"]);

/**
 * The outermost middleware: opens the request's scope (partner, module,
 * ids: on every log line written while it is served, core/logging/logger.ts) and
 * writes one access line per request, without headers or bodies (they carry
 * tokens and personal data), with its status, the envelope's status_code and
 * the duration; `observe` gets the same figures.
 */
export const accessLog =
  (log: Logger, modules: ReadonlySet<string>, observe?: (request: ObservedRequest) => void): Middleware =>
  (ctx, next) => {
    const route = routeOfPath(ctx.path, modules);
    const scope: RouteScope = { module: route.module, interface: route.interface };
    return servedInScope(scope, async () => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const answer = { method: ctx.method, path: ctx.path, httpStatus: ctx.status, statusCode: statusCodeOf(ctx.body) };
        recordRequest(log, scope, answer, started, observe);
      }
    });
  };

/**
 * The end of a request, in the scope it was served in: its access line
 * (at debug for probe paths) and its figures for `observe`. The line is
 * built only when its level is logged.
 */
export const recordRequest = (
  log: Logger,
  scope: RouteScope,
  answer: { method: string; path: string; httpStatus: number; statusCode?: number },
  started: bigint,
  observe?: (request: ObservedRequest) => void,
): void => {
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const level = PROBE_PATHS.has(answer.path) ? "debug" : "info";
  if (log.isLevelEnabled(level)) {
    const line = {
      method: answer.method,
      path: answer.path,
      interface: scope.interface,
      status: answer.httpStatus,
      statusCode: answer.statusCode,
      ms: Math.round(seconds * 10_000) / 10,
    };
    log[level](line, "request");
  }
  scope.ended = true;
  observe?.({ partner: scope.partner, module: scope.module, interface: scope.interface, method: answer.method, httpStatus: answer.httpStatus, statusCode: answer.statusCode, seconds });
};

const STATUS_CODE_KEY = Buffer.from('"status_code":');

/**
 * The envelope's status_code, from the envelope or from its bytes when the
 * route wrote them already serialised. Both envelope() and the cached bytes
 * (core/host/mount-route.ts) put `status_code` first, before `data`, so the
 * first `"status_code":` in the bytes is the envelope's (found without
 * scanning a 30 KB page).
 */
const statusCodeOf = (body: unknown): number | undefined => {
  if (typeof body === "object" && body !== null && !Buffer.isBuffer(body)) {
    const code = (body as { status_code?: unknown }).status_code;
    return typeof code === "number" ? code : undefined;
  }
  const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.isBuffer(body) ? body : undefined;
  if (!bytes) return undefined;
  const at = bytes.indexOf(STATUS_CODE_KEY);
  if (at < 0) return undefined;
  const match = /^\s*(\d{1,4})/.exec(bytes.subarray(at + STATUS_CODE_KEY.length, at + STATUS_CODE_KEY.length + 8).toString("latin1"));
  return match ? Number(match[1]) : undefined;
};
