import type { DependencyContainer } from "tsyringe";
import type { Middleware } from "koa";
import type { GatewayConfig } from "../config/types";
import type { ServedModule } from "../core/modules/served-modules";
import type { Store } from "../core/contract/store";
import { TOKENS } from "../core/contract/injection-tokens";
import { PartnerRegistry } from "../core/partners/partner-registry";
import { Outbox } from "../core/outbox/outbox";
import { PendingRequests } from "../core/async/pending-requests";
import { LossyTranslationLog } from "../core/model/lossy";
import { TolerantReader } from "../core/model/tolerant-reader";
import { GatewayMetrics } from "../core/metrics/gateway-metrics";
import { statusPageRoute } from "../core/admin/status-page/status-route";
import { openApiRoute } from "../core/admin/openapi";

/** The status page (/admin/status) and the admin API's OpenAPI document (/admin/v1/openapi.json). */
export const statusPageRoutes = (container: DependencyContainer, served: readonly ServedModule[]): Middleware[] => [
  openApiRoute(container.resolve<GatewayConfig>(TOKENS.Config).server.admin_token),
  statusPageRoute({
    config: container.resolve<GatewayConfig>(TOKENS.Config),
    served,
    store: container.resolve<Store>(TOKENS.Store),
    registry: container.resolve(PartnerRegistry),
    outbox: container.resolve(Outbox),
    pending: container.resolve(PendingRequests),
    lossy: container.resolve(LossyTranslationLog),
    reader: container.resolve(TolerantReader),
    hourly: container.resolve(GatewayMetrics).hourly,
  }),
];
