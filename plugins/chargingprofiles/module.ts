import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { Store } from "../../core/store/port";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import type { AdminRoute } from "../../core/admin/admin-api";
import type { InterfaceRole, VersionNumber } from "../../core/protocol/types";
import { portNameOf } from "../../core/plugin";
import { TOKENS } from "../../core/tokens";
import { PendingRequests } from "../../core/async/pending-requests";
import { asyncTimeoutSeconds } from "../../core/async/outgoing";
import { Outbox } from "../../core/outbox/outbox";
import { PartnerClient } from "../../core/client/partner-client";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import type { ChargingProfilesReceiverPort, ChargingProfilesSenderPort } from "./ports";
import { ProfileRequestReceiver } from "./receiver";
import { ProfileRequestSender } from "./sender";
import { ProfileSenders } from "./subscriptions";
import { ChargingProfilesClient } from "./client";

/**
 * The chargingprofiles module (2.2+): a CPO takes requests about the
 * charging profile of a session (RECEIVER); a Smart Charging party issues
 * them through the gateway and takes results and active-profile updates
 * (SENDER). Results are asynchronous and kept pending in the store (core/async).
 */
@injectable()
export class ChargingProfilesPlugin implements ModulePlugin {
  readonly module = "chargingprofiles";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  private receiver?: ProfileRequestReceiver;
  private sender?: ProfileRequestSender;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.Store) private readonly store: Store,
    private readonly pending: PendingRequests,
    private readonly outbox: Outbox,
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
      (port as ChargingProfilesReceiverPort).connect(receiver);
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

  private receiverFor(port: unknown): ProfileRequestReceiver {
    this.receiver ??= new ProfileRequestReceiver(
      port as ChargingProfilesReceiverPort,
      this.pending,
      this.outbox,
      new ProfileSenders(this.store),
      this.registry,
      this.log.child({ module: this.module }),
      asyncTimeoutSeconds(this.config),
    );
    return this.receiver;
  }

  private senderFor(port: unknown): ProfileRequestSender {
    this.sender ??= new ProfileRequestSender(
      port as ChargingProfilesSenderPort,
      this.pending,
      new ChargingProfilesClient(this.partners),
      this.registry,
      this.config,
    );
    return this.sender;
  }
}
