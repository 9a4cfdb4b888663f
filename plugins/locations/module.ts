import { injectable } from "tsyringe";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import { portNameOf } from "../../core/plugin";
import type { LocationsReceiverPort, LocationsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";

/** The locations module (data owner CPO): Sender and Receiver interfaces in every supported version. */
@injectable()
export class LocationsPlugin implements ModulePlugin {
  readonly module = "locations";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner: Role = "CPO";

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "SENDER" ? senderRoutes(port as LocationsSenderPort) : receiverRoutes(port as LocationsReceiverPort);
  }
}
