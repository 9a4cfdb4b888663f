import Router from "@koa/router";
import type { Context } from "koa";
import type { GatewayConfig } from "../../config/types";
import { envelope } from "../http/envelope";
import { unauthorized } from "../http/errors";
import { requestBody } from "../http/json-body";
import { flatQuery } from "../http/pagination";
import { bearerMatches } from "./admin-auth";

/**
 * The gateway's own API for the backend behind it (not for roaming
 * partners): change events from a legacy system, commands an eMSP backend
 * issues, on-demand syncs. Bearer-token protected with `server.admin_token`;
 * off when no token is configured. Answers use the same envelope.
 */
export interface AdminRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** relative to /admin/v1 */
  path: string;
  handle(req: AdminRequest): Promise<{ data?: unknown; httpStatus?: number }>;
}

export interface AdminRequest {
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  requestId: string;
}

export const ADMIN_ROOT = "/admin/v1";

export const mountAdminRoutes = (router: Router, config: GatewayConfig, routes: readonly AdminRoute[]): void => {
  const token = config.server.admin_token;
  if (!token) return;
  const authorize = (ctx: Context) => {
    if (!bearerMatches(ctx.get("Authorization"), token)) throw unauthorized("Admin API: unknown or missing bearer token");
  };
  for (const route of routes) {
    router.register(ADMIN_ROOT + route.path, [route.method], async (ctx: Context) => {
      authorize(ctx);
      const reply = await route.handle({
        params: ctx.params as Record<string, string>,
        query: flatQuery(ctx.query),
        body: requestBody(ctx.request as { rawBody?: string; body?: unknown }),
        requestId: ctx.state.requestId,
      });
      ctx.status = reply.httpStatus ?? 200;
      ctx.body = envelope(reply.data);
    });
  }
};
