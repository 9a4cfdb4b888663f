import type { Middleware } from "koa";
import type { Readiness } from "./readiness";

/**
 * `GET /health`: the process lives and answers (200). `GET /ready`: 200
 * when this instance should get traffic, else 503 naming what fails
 * (`store`, `adapter <name>`, `shutting down`), never why. Both without
 * auth, plain JSON, never cached; nothing of the config is in them.
 */
export const healthRoutes =
  (readiness: Readiness): Middleware =>
  async (ctx, next) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") return next();
    if (ctx.path === "/health") {
      ctx.set("Cache-Control", "no-store");
      ctx.body = { status: "ok" };
      return;
    }
    if (ctx.path === "/ready") {
      const report = await readiness.report();
      ctx.set("Cache-Control", "no-store");
      ctx.status = report.ready ? 200 : 503;
      ctx.body = report.ready ? { status: "ready" } : { status: "not ready", failing: report.failing };
      return;
    }
    return next();
  };
