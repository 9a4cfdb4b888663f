import { inject, injectable } from "tsyringe";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import { CDR_TRANSLATION_LOSSES, cdrType } from "./translate";
import { DataModulePlugin } from "../../core/modules/data-module";
import { TOKENS } from "../../core/contract/injection-tokens";
import type { CdrsReceiverPort, CdrsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { Cdr } from "./model";
import { CDRS_PUSH } from "./push";
import { AuthorizationReferences } from "../payments/authorization-references";

/** The CDRs module: CPOs serve their CDRs (Sender) and push them to eMSPs (Receiver). */
@injectable()
export class CdrsPlugin extends DataModulePlugin<CdrsSenderPort, CdrsReceiverPort> {
  readonly module = "cdrs";
  readonly translationLosses = CDR_TRANSLATION_LOSSES;
  readonly dataOwner = "CPO" as const;
  readonly portMethods = { SENDER: ["list"], RECEIVER: ["get", "insert"] } as const;
  readonly pushSpec = CDRS_PUSH;
  /** CDRs are immutable: one we already have is left as it is, so a repeated pull stores nothing twice */
  readonly syncSpec: SyncSpec<Cdr, CdrsReceiverPort> = {
    type: cdrType,
    upsert: (port, owner, cdr, ctx) => this.references.cdrsReceiver(port).insert(owner, cdr, ctx),
  };

  /** the public URL is needed for the Location header a POSTed CDR is answered with; stored CDRs are indexed by authorization_reference (FAC links) */
  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    private readonly references: AuthorizationReferences,
  ) {
    super();
  }

  protected senderRoutes(port: CdrsSenderPort): RouteSpec[] {
    return senderRoutes(port);
  }

  protected receiverRoutes(port: CdrsReceiverPort): RouteSpec[] {
    return receiverRoutes(this.references.cdrsReceiver(port), this.config.server.public_url);
  }
}
