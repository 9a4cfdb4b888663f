import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import type { AdminRoute } from "../../core/admin/admin-api";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import { portNameOf } from "../../core/plugin";
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
export class CommandsPlugin implements ModulePlugin {
  readonly module = "commands";
  readonly translationLosses = COMMANDS_TRANSLATION_LOSSES;
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  /** eMSPs send commands: in 2.1.1, which lists one URL per module, a CPO lists its receiver and an eMSP its callbacks */
  readonly dataOwner: Role = "EMSP";
  private receiver?: CommandReceiver;
  private sender?: CommandSender;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) private readonly log: Logger,
    private readonly pending: PendingRequests,
    private readonly outbox: Outbox,
    private readonly lossy: LossyTranslationLog,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
  ) {}

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  connect(role: InterfaceRole, port: unknown): void {
    if (role === "RECEIVER") {
      const receiver = this.receiverFor(port);
      this.pending.register(receiver);
      (port as CommandsReceiverPort).connect(receiver);
    } else {
      this.pending.register(this.senderFor(port));
    }
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "RECEIVER" ? this.receiverFor(port).routes() : this.senderFor(port).routes();
  }

  adminRoutes(role: InterfaceRole, port: unknown): AdminRoute[] {
    return role === "RECEIVER" ? this.receiverFor(port).adminRoutes() : this.senderFor(port).adminRoutes();
  }

  private receiverFor(port: unknown): CommandReceiver {
    this.receiver ??= new CommandReceiver(
      port as CommandsReceiverPort,
      this.pending,
      this.outbox,
      this.lossy,
      this.log.child({ module: this.module }),
      asyncTimeoutSeconds(this.config),
    );
    return this.receiver;
  }

  private senderFor(port: unknown): CommandSender {
    this.sender ??= new CommandSender(
      port as CommandsSenderPort,
      this.pending,
      new CommandsClient(this.partners, this.lossy),
      this.registry,
      this.config,
    );
    return this.sender;
  }
}
