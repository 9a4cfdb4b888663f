import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Middleware } from "koa";
import { currentRequest } from "./request-scope";

const ID_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface RequestIds {
  requestId: string;
  correlationId: string;
}

const given = (value: string | string[] | undefined): string | undefined =>
  typeof value === "string" && ID_PATTERN.test(value) ? value : undefined;

/** The ids a request is answered with: the peer's when valid, else minted (the correlation id defaults to the request id). */
export const requestIdsOf = (headers: IncomingHttpHeaders): RequestIds => {
  const requestId = given(headers["x-request-id"]) ?? randomUUID();
  return { requestId, correlationId: given(headers["x-correlation-id"]) ?? requestId };
};

/**
 * Ids already given to a request before Koa saw it (the cached-GET fast path,
 * core/host/cached-get.ts, which hands a request it cannot answer on to
 * Koa): the request keeps them, so whatever was logged under them meanwhile
 * names the ids its answer carries.
 */
export const earlierIds = new WeakMap<IncomingMessage, RequestIds>();

/**
 * Echoes X-Request-ID and X-Correlation-ID on every response, minting them
 * when the peer sent none (2.1.1 defines neither header). Runs first, so
 * even error responses carry them.
 */
export const requestIds: Middleware = async (ctx, next) => {
  const ids = earlierIds.get(ctx.req) ?? requestIdsOf(ctx.headers);
  ctx.state.requestId = ids.requestId;
  ctx.state.correlationId = ids.correlationId;
  ctx.set("X-Request-ID", ids.requestId);
  ctx.set("X-Correlation-ID", ids.correlationId);
  const scope = currentRequest();
  if (scope) Object.assign(scope, ids);
  await next();
};
