import type { RouteSpec } from "../../core/plugin";
import { portContext } from "../../core/modules/receiver-rules";
import type { CdrsSenderPort } from "./ports";
import { cdrType } from "./translate";

/** Sender interface: GET list only (CDRs are pulled with date filters on last_updated, the creation time). */
export const senderRoutes = (port: CdrsSenderPort): RouteSpec[] => [
  {
    method: "GET",
    path: "",
    paginated: true,
    cache: true,
    response: cdrType,
    handle: async (req) => ({ page: await port.list(req.page, portContext(req)) }),
  },
];
