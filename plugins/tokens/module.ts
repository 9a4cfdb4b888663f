import { injectable } from "tsyringe";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import { portNameOf } from "../../core/plugin";
import type { TokensReceiverPort, TokensSenderPort } from "./ports";
import { receiverRoutes } from "./receiver";
import { senderRoutes } from "./sender";
import type { SyncSpec } from "../../core/sync/sync-spec";
import type { Token } from "./model";
import { tokenObjectType } from "./translate";
import { TOKENS_PUSH } from "./push";

/** The tokens module: data owned by the eMSP, pushed to and authorized for CPOs. */
@injectable()
export class TokensPlugin implements ModulePlugin {
  readonly module = "tokens";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner: Role = "EMSP";
  readonly pushSpec = TOKENS_PUSH;
  /** an eMSP's Tokens pulled into our (CPO) Receiver, e.g. to authorize whitelisted tokens offline */
  readonly syncSpec: SyncSpec<Token> = {
    type: tokenObjectType,
    upsert: (port, owner, token, ctx) => (port as TokensReceiverPort).put(owner, token, ctx),
  };

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "SENDER" ? senderRoutes(port as TokensSenderPort) : receiverRoutes(port as TokensReceiverPort);
  }
}
