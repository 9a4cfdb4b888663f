import type { PageRequest } from "../../core/http/pagination";
import type { Page } from "../../core/http/pagination";
import type { PortContext, PutOutcome } from "../../core/ports";
import type { PartyRef } from "../../core/protocol/types";
import type { Location } from "./model";

export type { Connector, Evse, Location } from "./model";

/**
 * Sender interface: our own party's Locations (`ctx.party`) that the
 * calling partner (`ctx.partnerId`) may see: never a Location with publish
 * false, unless the backend can tell that the partner owns one of the
 * tokens in its publish_allowed_to. EVSEs and connectors are served from
 * their Location, so a backend answers for whole Locations only.
 */
export interface LocationsSenderPort {
  /** a page of `ctx.party`'s Locations, filtered on last_updated (from inclusive, to exclusive) */
  list(page: PageRequest, ctx: PortContext): Promise<Page<Location>>;
  get(locationId: string, ctx: PortContext): Promise<Location | undefined>;
}

/**
 * Receiver interface: Locations pushed by a partner, stored per owner.
 * Pushes of an EVSE or a Connector change their Location, so they go
 * through `update`: an atomic read-modify-write whose change function the
 * plugin provides (merge, last_updated propagation, validation), keeping
 * the protocol rules out of the backends.
 */
export interface LocationsReceiverPort {
  get(owner: PartyRef, locationId: string, ctx: PortContext): Promise<Location | undefined>;
  put(owner: PartyRef, location: Location, ctx: PortContext): Promise<PutOutcome>;
  /**
   * Replaces the stored Location by `change(current)`. `change` may throw
   * (then nothing is stored) and may run more than once, so it must be
   * pure. Resolves to the stored result, or undefined when the Location is unknown.
   */
  update(owner: PartyRef, locationId: string, change: (current: Location) => Location, ctx: PortContext): Promise<Location | undefined>;
}
