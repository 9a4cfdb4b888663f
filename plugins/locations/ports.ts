import type { PageRequest } from "../../core/contract/page";
import type { JsonPage, Page } from "../../core/contract/page";
import type { PortContext } from "../../core/contract/port-context";
import type { PartyRef } from "../../core/protocol/types";
import type { UpdatablePort } from "../../core/modules/update-stored";
import type { Location } from "./model";

export type { Connector, Evse, Location } from "./model";

/**
 * Sender interface: our own party's Locations (`ctx.party`). The backend
 * answers with what it has; the plugin withholds what partners may not see
 * (a Location with publish false, plugins/locations/published.ts). EVSEs and
 * connectors are served from their Location, so a backend answers for whole
 * Locations only.
 */
export interface LocationsSenderPort {
  /**
   * a page of `ctx.party`'s Locations, filtered on last_updated (from inclusive, to exclusive),
   * and to published ones when `page.published` is set (apply it natively, so pages stay full and totals right)
   */
  list(page: PageRequest, ctx: PortContext): Promise<Page<Location>>;
  /** optional: `list` as the JSON the Locations are stored as (a JsonPage, answered without parsing them) */
  listJson?(page: PageRequest, ctx: PortContext): Promise<JsonPage>;
  /** one of `ctx.party`'s Locations, published or not */
  get(locationId: string, ctx: PortContext): Promise<Location | undefined>;
}

/**
 * Receiver interface: Locations pushed by a partner, stored per owner
 * (`get` and `put`). Pushes of an EVSE or a Connector change their Location:
 * the plugin merges and validates (core/modules/update-stored.ts), through
 * the optional atomic `update` when the backend has one.
 */
export interface LocationsReceiverPort extends UpdatablePort<string, Location> {
  /**
   * Optional: `put` of several Locations of `owner` at once, in their order (one with the same id later
   * wins); a sync pull stores a page with one call instead of one per Location. Without it, it puts each.
   */
  putAll?(owner: PartyRef, locations: Location[], ctx: PortContext): Promise<void>;
}
