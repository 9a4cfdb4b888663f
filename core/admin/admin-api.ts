import Router from "@koa/router";
import type { Context } from "koa";
import type { GatewayConfig } from "../../config/types";
import { envelope } from "../http/envelope";
import { unauthorized } from "../contract/errors";
import { requestBody } from "../http/json-body";
import { flatQuery } from "../http/pagination";
import { bearerMatches } from "../http/bearer-auth";
import type { AdminRoute } from "../contract/admin-route";

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
        body: requestBody(ctx.request as { body?: unknown }),
        requestId: ctx.state.requestId,
      });
      ctx.status = reply.httpStatus ?? 200;
      ctx.body = envelope(reply.data);
    });
  }
};
