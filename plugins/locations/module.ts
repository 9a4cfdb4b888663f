import { injectable } from "tsyringe";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import { portNameOf } from "../../core/plugin";
import type { LocationsReceiverPort, LocationsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/sync/sync-spec";
import type { Location } from "./model";
import { locationType } from "./translate";
import { LOCATIONS_PUSH } from "./push";

/** The locations module (data owner CPO): Sender and Receiver interfaces in every supported version. */
@injectable()
export class LocationsPlugin implements ModulePlugin {
  readonly module = "locations";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner: Role = "CPO";
  readonly pushSpec = LOCATIONS_PUSH;
  /** a CPO's Locations pulled whole into our Receiver */
  readonly syncSpec: SyncSpec<Location> = {
    type: locationType,
    upsert: (port, owner, location, ctx) => (port as LocationsReceiverPort).put(owner, location, ctx),
  };

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "SENDER" ? senderRoutes(port as LocationsSenderPort) : receiverRoutes(port as LocationsReceiverPort);
  }
}
