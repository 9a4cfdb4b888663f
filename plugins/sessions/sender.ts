import type { RouteSpec } from "../../core/contract/module-plugin";
import { invalid, notFound } from "../../core/contract/errors";
import type { ChargingPreferences, Session } from "./model";
import type { SessionsSenderPort } from "./ports";
import { chargingPreferencesType, sessionType } from "./translate";
import { tokenOwnerInScope } from "./token-owner";
import type { SessionLocations } from "./session-location";

/**
 * Our CPO interface: the session list partners pull, and charging preferences they set (2.2+). Each listed
 * session carries its Location from our Locations (`locations`), which a 2.1.1 Session embeds.
 */
export const senderRoutes = (port: SessionsSenderPort, locations: SessionLocations): RouteSpec[] => [
  {
    method: "GET",
    path: "",
    paginated: true,
    // The list depends on who asks (sessions belong to their token's owner): cached per partner scope.
    cache: "per-scope",
    response: sessionType,
    // a page of stored JSON translated to another version gets its Locations then (2.1.1 embeds them)
    completeItems: (items) => locations.attachAll(items as Session[]),
    handle: async (req) => {
      // Sessions is the one list where date_from is required (OCPI 2.2.1 Sessions module); the kernel treats it as optional.
      if (!req.query.date_from) throw invalid("query parameter date_from is required for the sessions list");
      // stored JSON when the adapter offers it (spliced as it is in 2.3.0: core/host/rendered-answer.ts)
      if (port.listJson) return { page: await port.listJson(req.page, req.port) };
      // whatever the caller's version: the page may be cached and then served to a 2.1.1 partner too
      const page = await port.list(req.page, req.port);
      return { page: { ...page, items: await locations.attachAll(page.items) } };
    },
  },
  {
    method: "PUT",
    path: "/:session_id/charging_preferences",
    body: { type: chargingPreferencesType, mode: "full" },
    handle: async (req) => {
      if (req.ctx.version === "2.1.1") throw notFound("charging_preferences (not part of OCPI 2.1.1)");
      const sessionId = req.params.session_id;
      if (sessionId.length > 36) throw invalid("path session_id must be at most 36 characters");
      // Another eMSP's session is answered like an unknown one: its existence is not revealed.
      const session = await port.get(sessionId, req.port);
      if (!session || !tokenOwnerInScope(req.port.scope, session)) throw notFound(`Session ${sessionId}`);
      const result = await port.setChargingPreferences(sessionId, req.body as ChargingPreferences, req.port);
      if (result === undefined) throw notFound(`Session ${sessionId}`);
      // data is a bare ChargingPreferencesResponse string, the same in every version
      return { data: result };
    },
  },
];
