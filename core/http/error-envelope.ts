import type { Middleware } from "koa";
import type { Logger } from "pino";
import { OcpiError } from "../contract/errors";
import { envelope } from "./envelope";
import { Status } from "../protocol/status";
import { storeUnavailableIn } from "../contract/store-unavailable";

/** Seconds a client is told to wait after a store outage answer: about one reconnect or failover step. */
const STORE_RETRY_AFTER_SECONDS = 1;

/**
 * Turns every failure below it into a protocol envelope: OcpiError with its
 * own codes, an unknown route into HTTP 404, anything unexpected into HTTP
 * 500 + 3000 naming the request id, never a stack trace. A store outage is
 * HTTP 503 + 3000 with Retry-After, not logged here: the store logs it once
 * per outage, not once per request.
 */
export const errorEnvelope =
  (log: Logger): Middleware =>
  async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = envelope(undefined, Status.CLIENT_ERROR, `No endpoint at ${ctx.method} ${ctx.path}`);
      } else if (ctx.status === 405 && !isEnvelope(ctx.body)) {
        ctx.body = envelope(undefined, Status.CLIENT_ERROR, `Method ${ctx.method} not allowed on ${ctx.path}`);
      } else if (ctx.status >= 400 && !isEnvelope(ctx.body)) {
        // e.g. 501 from the router for a method it does not know: still an envelope, never a text body
        const server = ctx.status >= 500;
        ctx.body = envelope(undefined, server ? Status.SERVER_ERROR : Status.CLIENT_ERROR, `HTTP ${ctx.status} on ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      if (error instanceof OcpiError) {
        ctx.status = error.httpStatus;
        for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
        ctx.body = envelope(undefined, error.statusCode, error.message);
        return;
      }
      const outage = storeUnavailableIn(error);
      if (outage) {
        ctx.status = 503;
        ctx.set("Retry-After", String(STORE_RETRY_AFTER_SECONDS));
        ctx.body = envelope(undefined, Status.SERVER_ERROR, outage.message);
        return;
      }
      log.error({ err: error, requestId: ctx.state.requestId, path: ctx.path, method: ctx.method }, "unexpected error");
      ctx.status = 500;
      ctx.body = envelope(undefined, Status.SERVER_ERROR, `Internal error; request id ${ctx.state.requestId}`);
    }
  };

const isEnvelope = (body: unknown): boolean =>
  typeof body === "object" && body !== null && "status_code" in (body as Record<string, unknown>);
