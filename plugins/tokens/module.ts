import { injectable } from "tsyringe";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { Role } from "../../core/protocol/types";
import { TOKENS_TRANSLATION_LOSSES, tokenObjectType } from "./translate";
import { DataModulePlugin } from "../../core/modules/data-module";
import type { TokensReceiverPort, TokensSenderPort } from "./ports";
import { receiverRoutes } from "./receiver";
import { senderRoutes } from "./sender";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { Token } from "./model";
import { TOKENS_PUSH } from "./push";

/** The tokens module: data owned by the eMSP, pushed to and authorized for CPOs. */
@injectable()
export class TokensPlugin extends DataModulePlugin<TokensSenderPort, TokensReceiverPort> {
  readonly module = "tokens";
  readonly translationLosses = TOKENS_TRANSLATION_LOSSES;
  readonly dataOwner: Role = "EMSP";
  readonly portMethods = { SENDER: ["list", "authorize"], RECEIVER: ["get", "put"] } as const;
  readonly pushSpec = TOKENS_PUSH;
  /** an eMSP's Tokens pulled into our (CPO) Receiver, e.g. to authorize whitelisted tokens offline */
  readonly syncSpec: SyncSpec<Token, TokensReceiverPort> = {
    type: tokenObjectType,
    upsert: (port, owner, token, ctx) => port.put(owner, token, ctx),
  };

  protected senderRoutes(port: TokensSenderPort): RouteSpec[] {
    return senderRoutes(port);
  }

  protected receiverRoutes(port: TokensReceiverPort): RouteSpec[] {
    return receiverRoutes(port);
  }
}
