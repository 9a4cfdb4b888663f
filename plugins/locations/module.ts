import { injectable } from "tsyringe";
import type { Role } from "../../core/protocol/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import { LOCATIONS_TRANSLATION_LOSSES, locationType } from "./translate";
import { DataModulePlugin } from "../../core/modules/data-module";
import type { LocationsReceiverPort, LocationsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { Location } from "./model";
import { LOCATIONS_PUSH } from "./push";

/** The locations module (data owner CPO): Sender and Receiver interfaces in every supported version. */
@injectable()
export class LocationsPlugin extends DataModulePlugin<LocationsSenderPort, LocationsReceiverPort> {
  readonly module = "locations";
  readonly translationLosses = LOCATIONS_TRANSLATION_LOSSES;
  readonly dataOwner: Role = "CPO";
  readonly portMethods = { SENDER: ["list", "get"], RECEIVER: ["get", "put"] } as const;
  readonly pushSpec = LOCATIONS_PUSH;
  /** a CPO's Locations pulled whole into our Receiver */
  readonly syncSpec: SyncSpec<Location, LocationsReceiverPort> = {
    type: locationType,
    upsert: (port, owner, location, ctx) => port.put(owner, location, ctx),
    upsertAll: async (port, owner, locations, ctx) => {
      if (!port.putAll) return false;
      await port.putAll(owner, locations, ctx);
      return true;
    },
  };

  protected senderRoutes(port: LocationsSenderPort): RouteSpec[] {
    return senderRoutes(port);
  }

  protected receiverRoutes(port: LocationsReceiverPort): RouteSpec[] {
    return receiverRoutes(port);
  }
}
