import { inject, injectable } from "tsyringe";
import type { GatewayConfig } from "../../config/types";
import type { InterfaceRole, VersionNumber } from "../../core/protocol/types";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import { portNameOf } from "../../core/plugin";
import { TOKENS } from "../../core/tokens";
import type { CdrsReceiverPort, CdrsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";

/** The CDRs module: CPOs serve their CDRs (Sender) and push them to eMSPs (Receiver). */
@injectable()
export class CdrsPlugin implements ModulePlugin {
  readonly module = "cdrs";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner = "CPO" as const;

  /** the public URL is needed for the Location header a POSTed CDR is answered with */
  constructor(@inject(TOKENS.Config) private readonly config: GatewayConfig) {}

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "SENDER"
      ? senderRoutes(port as CdrsSenderPort)
      : receiverRoutes(port as CdrsReceiverPort, this.config.server.public_url);
  }
}
