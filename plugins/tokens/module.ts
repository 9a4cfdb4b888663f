import { injectable } from "tsyringe";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import { portNameOf } from "../../core/plugin";
import type { TokensReceiverPort, TokensSenderPort } from "./ports";
import { receiverRoutes } from "./receiver";
import { senderRoutes } from "./sender";

/** The tokens module: data owned by the eMSP, pushed to and authorized for CPOs. */
@injectable()
export class TokensPlugin implements ModulePlugin {
  readonly module = "tokens";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner: Role = "EMSP";

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "SENDER" ? senderRoutes(port as TokensSenderPort) : receiverRoutes(port as TokensReceiverPort);
  }
}
