import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { Role, VersionNumber } from "../../core/protocol/types";
import type { Store } from "../../core/store/port";
import { AsyncModulePlugin } from "../../core/async/async-module";
import { TOKENS } from "../../core/tokens";
import { PendingRequests } from "../../core/async/pending-requests";
import { asyncTimeoutSeconds } from "../../core/async/outgoing";
import { Outbox } from "../../core/outbox/outbox";
import { LossyTranslationLog } from "../../core/model/lossy";
import { PartnerClient } from "../../core/client/partner-client";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import type { CommandsReceiverPort, CommandsSenderPort } from "./ports";
import { CommandReceiver } from "./receiver";
import { CommandSender } from "./sender";
import { CommandsClient } from "./client";
import { COMMANDS_TRANSLATION_LOSSES } from "./translate";

/**
 * The commands module: a CPO receives commands for its charge points
 * (RECEIVER), an eMSP's backend issues them through the gateway and takes
 * the results at its response_urls (SENDER). Results are asynchronous and
 * kept pending in the store (core/async).
 */
@injectable()
export class CommandsPlugin extends AsyncModulePlugin<CommandsReceiverPort, CommandsSenderPort, CommandReceiver, CommandSender> {
  readonly module = "commands";
  readonly translationLosses = COMMANDS_TRANSLATION_LOSSES;
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  /** eMSPs send commands: in 2.1.1, which lists one URL per module, a CPO lists its receiver and an eMSP its callbacks */
  readonly dataOwner: Role = "EMSP";
  readonly portMethods = { RECEIVER: ["connect", "location", "session", "submit"], SENDER: ["onResult"] } as const;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) private readonly log: Logger,
    pending: PendingRequests,
    private readonly outbox: Outbox,
    private readonly lossy: LossyTranslationLog,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
    @inject(TOKENS.Store) private readonly store: Store,
  ) {
    super(pending);
  }

  protected createReceiver(port: CommandsReceiverPort): CommandReceiver {
    return new CommandReceiver(port, this.pending, this.outbox, this.lossy, this.log.child({ module: this.module }), asyncTimeoutSeconds(this.config));
  }

  protected createSender(port: CommandsSenderPort): CommandSender {
    const log = this.log.child({ module: this.module });
    const client = new CommandsClient(this.partners, this.lossy, asyncTimeoutSeconds(this.config), log);
    return new CommandSender(port, this.pending, client, this.registry, this.store, this.config, log);
  }
}
