import type { RouteSpec } from "../../core/contract/module-plugin";
import type { TariffsSenderPort } from "./ports";
import { tariffType } from "./translate";

/** Sender interface: the paginated list of our party's tariffs (the only Sender call for tariffs). */
export const senderRoutes = (port: TariffsSenderPort): RouteSpec[] => [
  {
    method: "GET",
    path: "",
    paginated: true,
    cache: true,
    response: tariffType,
    handle: async (req) => ({ page: await port.list(req.page, req.port) }),
  },
];
