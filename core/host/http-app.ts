import type { IncomingMessage, ServerResponse } from "node:http";
import Koa, { type Middleware } from "koa";
import Router from "@koa/router";
import type { ServedModule } from "../modules/served-modules";
import { requestIds } from "../http/request-ids";
import { errorEnvelope } from "../http/error-envelope";
import { jsonBody } from "../http/json-body";
import { bodyLimitsOf } from "../http/body-limits";
import { versionRoutes } from "../versions/version-routes";
import { mountRoute, type KernelServices } from "./mount-route";
import { admit } from "../edge/admit";
import { ROUTE_ROOT, modulePath } from "../http/urls";
import { SUPPORTED_VERSIONS } from "../protocol/types";
import { mountAdminRoutes } from "../admin/admin-api";
import { type AdminRoute } from "../contract/admin-route";
import { translationLossesRoute } from "../admin/translation-losses";
import { accessLog } from "./access-log";
import { CachedGets } from "./cached-get";
import { ForwardedGets } from "./forwarded-get";
import type { ObservedRequest } from "../http/observed-request";
import type { Adapter } from "../contract/adapter";
import { adapterInbound } from "../http/adapter-inbound";

/** What the HTTP app takes from operations: the access log's observer and the routes served beside the protocol's. */
export interface OperationsSurface {
  observe(request: ObservedRequest): void;
  /** run after request ids, before the error envelope: /health, /ready, /metrics, /admin/status */
  middleware: Middleware[];
}

/** The gateway's HTTP surface; the order of `use` is the life of a request. */
export const buildHttpApp = (
  served: readonly ServedModule[],
  k: KernelServices,
  adminRoutes: readonly AdminRoute[] = [],
  ops?: OperationsSurface,
  adapters: ReadonlyMap<string, Adapter> = new Map(),
): Koa => {
  const app = new GatewayApp();
  const modules = new Set(served.map((s) => s.plugin.module));
  // not on a hub: its forwarding decides on each request before the kernel
  const cachedGets = k.cache && !k.forward ? new CachedGets({ ...k, cache: k.cache }, modules, ops?.observe) : undefined;
  app.use(accessLog(k.log, modules, ops?.observe));
  app.use(requestIds);
  for (const route of ops?.middleware ?? []) app.use(route);
  app.use(errorEnvelope(k.log));
  app.use(adapterInbound(adapters, bodyLimitsOf(k.config)));
  // requests addressed to a partner's party go on from here, their bodies unread (streamed)
  if (k.forward) app.use(k.forward.middleware);
  app.use(jsonBody(bodyLimitsOf(k.config)));

  const router = new Router();
  versionRoutes(router, served, k.config, k.registry);
  for (const module of served) {
    const routes = module.plugin.routes(module.role, module.port);
    for (const version of module.versions) {
      const base = modulePath(version, module.plugin.module, module.role, module.plugin.configurationModule);
      for (const route of routes.filter((r) => !r.versions || r.versions.includes(version))) {
        router.register(base + route.path, [route.method], mountRoute(module, version, route, k));
        cachedGets?.add(base + route.path, module, version, route);
      }
    }
  }
  mountAdminRoutes(router, k.config, [
    ...adminRoutes,
    translationLossesRoute(served),
    ...served.flatMap((module) => module.plugin.adminRoutes?.(module.role, module.port) ?? []),
  ]);
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use(unknownOcpiPath(k, new Set(served.filter((s) => !s.plugin.configurationModule).map((s) => s.plugin.module))));
  app.answerBeforeKoa(cachedGets ?? (k.forward && new ForwardedGets(k.forward.gets, k.log, modules, ops?.observe)));
  return app;
};

/** Requests answered before Koa when they check out, the others handed to Koa (`next`). */
interface EntranceBeforeKoa {
  handle(req: IncomingMessage, res: ServerResponse, next: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<void>;
}

/**
 * Koa, with cached GETs (core/host/cached-get.ts) or, on a hub, forwarded
 * GETs (core/host/forwarded-get.ts) that check out answered before it once
 * the middleware is complete. Middleware added to the app afterwards (a
 * test's observer in front) must see every request: then Koa serves them all.
 */
class GatewayApp extends Koa {
  private before?: { entrance: EntranceBeforeKoa; middleware: readonly Koa.Middleware[] };

  answerBeforeKoa(entrance: EntranceBeforeKoa | undefined): void {
    this.before = entrance && { entrance, middleware: [...this.middleware] };
  }

  override callback(): ReturnType<Koa["callback"]> {
    const koa = super.callback();
    const fast = this.before;
    const unchanged = fast && fast.middleware.length === this.middleware.length && fast.middleware.every((m, i) => m === this.middleware[i]);
    if (!fast || !unchanged) return koa;
    return ((req: IncomingMessage, res: ServerResponse) => fast.entrance.handle(req, res, koa)) as ReturnType<Koa["callback"]>;
  }
}

/**
 * No route has this path. Inside the OCPI tree only a partner admitted there
 * learns that (404). It is admitted as on the routes of the version and
 * module the path names (`/ocpi/{version}/{sender|receiver}/{module}/…`,
 * when ours): a missing or unknown token, token A (valid on versions and
 * credentials only), a version or module not offered to the partner, or a
 * bad routing header gets the answer any route of theirs gives.
 */
const unknownOcpiPath =
  (k: KernelServices, modules: ReadonlySet<string>): Koa.Middleware =>
  async (ctx) => {
    const matched = (ctx as { matched?: unknown[] }).matched ?? [];
    if (matched.length > 0 || !(ctx.path === ROUTE_ROOT || ctx.path.startsWith(`${ROUTE_ROOT}/`))) return;
    const [, , named, role, module] = ctx.path.split("/");
    const version = SUPPORTED_VERSIONS.find((v) => v === named);
    const functional = version !== undefined && (role === "sender" || role === "receiver") && modules.has(module);
    await admit(k, { authorization: ctx.get("Authorization"), headers: ctx.headers, version, module: functional ? module : undefined });
  };
