import type { DependencyContainer } from "tsyringe";
import type { Middleware } from "koa";
import type { AdminRoute } from "../core/admin/admin-api";
import type { ServedModule } from "../core/host/served-modules";

/** Admin routes of operating the gateway (the OpenAPI document of the admin API). */
export const operationsAdminRoutes = (_container: DependencyContainer, _served: readonly ServedModule[]): AdminRoute[] => [];

/** The status page (/admin/status), built from what is served. */
export const statusPageRoutes = (_container: DependencyContainer, _served: readonly ServedModule[]): Middleware[] => [];
