import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { ResponseUrlSpot, RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import type { Store } from "../../core/contract/store";
import { AsyncModulePlugin, type PendingSpec } from "../../core/async/async-module";
import { TOKENS } from "../../core/contract/injection-tokens";
import { PendingRequests } from "../../core/async/pending-requests";
import { asyncTimeoutSeconds } from "../../core/async/outgoing";
import { Outbox } from "../../core/outbox/outbox";
import { LossyTranslationLog } from "../../core/model/lossy";
import { PartnerClient } from "../../core/client/partner-client";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import type { CommandResult } from "./model";
import type { CommandsReceiverPort, CommandsSenderPort } from "./ports";
import { receivedCommandsSpec, receiverAdminRoutes, receiverRoutes, type ReceivedCommandData } from "./receiver";
import { SENT_COMMANDS_SPEC, senderAdminRoutes, senderRoutes } from "./sender";
import { CommandsClient } from "./client";
import { COMMANDS_TRANSLATION_LOSSES } from "./translate";

/**
 * The commands module: a CPO receives commands for its charge points
 * (RECEIVER), an eMSP's backend issues them through the gateway and takes
 * the results at its response_urls (SENDER). Results are asynchronous and
 * kept pending in the store (core/async).
 */
@injectable()
export class CommandsPlugin extends AsyncModulePlugin<CommandsSenderPort, CommandsReceiverPort> {
  readonly module = "commands";
  readonly translationLosses = COMMANDS_TRANSLATION_LOSSES;
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  /** eMSPs send commands: in 2.1.1, which lists one URL per module, a CPO lists its receiver and an eMSP its callbacks */
  readonly dataOwner: Role = "EMSP";
  readonly portMethods = { SENDER: ["onResult"], RECEIVER: ["connect", "location", "session", "submit"] } as const;

  /** A command (POST `/{command}` to the CPO's RECEIVER) carries its response_url in the body (Commands module, CommandRequest objects). */
  responseUrlOf(role: InterfaceRole, method: string, rest: string): ResponseUrlSpot | undefined {
    return role === "RECEIVER" && method === "POST" ? { where: "body", resultRest: `${rest}/relay` } : undefined;
  }
  readonly received: PendingSpec<CommandsReceiverPort, ReceivedCommandData, CommandResult>;
  readonly sent = SENT_COMMANDS_SPEC;
  private readonly log: Logger;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) log: Logger,
    pending: PendingRequests,
    outbox: Outbox,
    private readonly lossy: LossyTranslationLog,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
    @inject(TOKENS.Store) private readonly store: Store,
  ) {
    super(pending);
    this.log = log.child({ module: this.module });
    this.received = receivedCommandsSpec(outbox, lossy, this.log);
  }

  protected senderRoutes(): RouteSpec[] {
    return senderRoutes(this.pending, this.log);
  }

  protected receiverRoutes(port: CommandsReceiverPort): RouteSpec[] {
    return receiverRoutes(port, this.pending, asyncTimeoutSeconds(this.config));
  }

  protected senderAdminRoutes(): AdminRoute[] {
    const client = new CommandsClient(this.partners, this.lossy, asyncTimeoutSeconds(this.config), this.log);
    return senderAdminRoutes({ pending: this.pending, client, registry: this.registry, store: this.store, config: this.config });
  }

  protected receiverAdminRoutes(): AdminRoute[] {
    return receiverAdminRoutes(this.pending);
  }
}
