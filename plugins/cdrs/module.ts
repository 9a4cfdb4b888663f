import { inject, injectable } from "tsyringe";
import type { GatewayConfig } from "../../config/types";
import type { InterfaceRole, VersionNumber } from "../../core/protocol/types";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import { portNameOf } from "../../core/plugin";
import { TOKENS } from "../../core/tokens";
import type { CdrsReceiverPort, CdrsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/sync/sync-spec";
import type { Cdr } from "./model";
import { cdrType } from "./translate";
import { CDRS_PUSH } from "./push";

/** The CDRs module: CPOs serve their CDRs (Sender) and push them to eMSPs (Receiver). */
@injectable()
export class CdrsPlugin implements ModulePlugin {
  readonly module = "cdrs";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner = "CPO" as const;
  readonly pushSpec = CDRS_PUSH;
  /** CDRs are immutable: one we already have is left as it is, so a repeated pull stores nothing twice */
  readonly syncSpec: SyncSpec<Cdr> = {
    type: cdrType,
    upsert: (port, owner, cdr, ctx) => (port as CdrsReceiverPort).insert(owner, cdr, ctx),
  };

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
