import type { RouteSpec } from "../../core/contract/module-plugin";
import type { CdrsSenderPort } from "./ports";
import { cdrType } from "./translate";

/** Sender interface: GET list only (CDRs are pulled with date filters on last_updated, the creation time). */
export const senderRoutes = (port: CdrsSenderPort): RouteSpec[] => [
  {
    method: "GET",
    path: "",
    paginated: true,
    // The list depends on who asks (CDRs belong to their token's owner): cached per partner scope.
    cache: "per-scope",
    response: cdrType,
    // stored JSON when the adapter offers it (spliced as it is in 2.3.0: core/host/rendered-answer.ts)
    handle: async (req) => ({ page: await (port.listJson ? port.listJson(req.page, req.port) : port.list(req.page, req.port)) }),
  },
];
