import type { Middleware } from "koa";
import { envelope } from "./envelope";
import { OcpiError } from "../contract/errors";
import { readRawBody, type BodyLimits } from "./body-limits";
import { Status } from "../protocol/status";
import type { InboundRoute } from "../contract/inbound-route";

export const ADAPTERS_ROOT = "/adapters";

/**
 * Serves the adapters' inbound routes, before the JSON body parser: the
 * route gets the raw bytes, read by the one body reader under the byte
 * limit every body has (`server.inbound.max_body_bytes`, HTTP 413: a
 * webhook's signature is over the raw bytes, so they are not parsed here).
 * An unknown path below /adapters is HTTP 404; anything thrown is answered
 * by the error envelope.
 */
export const adapterInbound = (adapters: ReadonlyMap<string, { readonly inbound?: readonly InboundRoute[] }>, limits: BodyLimits): Middleware => {
  const routes = new Map<string, InboundRoute>();
  for (const [name, adapter] of adapters)
    for (const route of adapter.inbound ?? []) routes.set(`${route.method} ${ADAPTERS_ROOT}/${name}${route.path}`, route);
  return async (ctx, next) => {
    if (!ctx.path.startsWith(`${ADAPTERS_ROOT}/`)) return next();
    const route = routes.get(`${ctx.method} ${ctx.path}`);
    if (!route) throw new OcpiError(Status.CLIENT_ERROR, "No such adapter route", 404);
    const rawBody = await readRawBody(ctx.req, ctx.res, limits);
    const headers = Object.fromEntries(Object.entries(ctx.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v]));
    const reply = await route.handle({ rawBody, headers });
    const ok = reply.httpStatus < 300;
    ctx.status = reply.httpStatus;
    ctx.body = envelope(null, ok ? Status.SUCCESS : reply.httpStatus >= 500 ? Status.SERVER_ERROR : Status.CLIENT_ERROR, reply.message);
  };
};
