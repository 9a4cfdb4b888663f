import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { Status } from "../../core/protocol/status";
import { notFound } from "../../core/contract/errors";
import type { Evse, Location } from "./model";
import type { LocationsSenderPort } from "./ports";
import { connectorType, evseType, locationType } from "./translate";
import { findConnector, findEvse } from "./merge";
import { isPublished, publishedListPage } from "./published";

/**
 * Sender interface (CPO side): our party's published Locations, as a
 * paginated list (the kernel parses offset/limit/date_from/date_to and
 * writes the paging headers) and as single Location, EVSE or Connector.
 * Unknown or unpublished → HTTP 404.
 */
export const senderRoutes = (port: LocationsSenderPort): RouteSpec[] => {
  const location = async (req: OcpiRequest): Promise<Location> => {
    const found = await port.get(req.params.location_id, req.port);
    if (!found || !isPublished(found)) throw notFound(`Location ${req.params.location_id}`, Status.UNKNOWN_LOCATION);
    return found;
  };
  const evse = async (req: OcpiRequest): Promise<Evse> => {
    const found = findEvse(await location(req), req.params.evse_uid);
    if (!found) throw notFound(`EVSE ${req.params.evse_uid}`, Status.UNKNOWN_LOCATION);
    return found;
  };
  return [
    {
      method: "GET",
      path: "",
      paginated: true,
      cache: true,
      response: locationType,
      handle: async (req) => ({ page: await publishedListPage(port, req.page, req.port) }),
    },
    { method: "GET", path: "/:location_id", cache: true, response: locationType, handle: async (req) => ({ data: await location(req) }) },
    { method: "GET", path: "/:location_id/:evse_uid", cache: true, response: evseType, handle: async (req) => ({ data: await evse(req) }) },
    {
      method: "GET",
      path: "/:location_id/:evse_uid/:connector_id",
      cache: true,
      response: connectorType,
      handle: async (req) => {
        const found = findConnector(await evse(req), req.params.connector_id);
        if (!found) throw notFound(`Connector ${req.params.connector_id}`, Status.UNKNOWN_LOCATION);
        return { data: found };
      },
    },
  ];
};
