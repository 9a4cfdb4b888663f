import { randomUUID } from "node:crypto";
import type { Middleware } from "koa";
import { currentRequest } from "./request-scope";

const ID_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Echoes X-Request-ID and X-Correlation-ID on every response, minting them
 * when the peer sent none (2.1.1 defines neither header). Runs first, so
 * even error responses carry them.
 */
export const requestIds: Middleware = async (ctx, next) => {
  const given = (name: string): string | undefined => {
    const value = ctx.get(name);
    return ID_PATTERN.test(value) ? value : undefined;
  };
  const requestId = given("X-Request-ID") ?? randomUUID();
  const correlationId = given("X-Correlation-ID") ?? requestId;
  ctx.state.requestId = requestId;
  ctx.state.correlationId = correlationId;
  ctx.set("X-Request-ID", requestId);
  ctx.set("X-Correlation-ID", correlationId);
  const scope = currentRequest();
  if (scope) Object.assign(scope, { requestId, correlationId });
  await next();
};
