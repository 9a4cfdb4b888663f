import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { Store } from "../../core/store/port";
import type { VersionNumber } from "../../core/protocol/types";
import { AsyncModulePlugin } from "../../core/async/async-module";
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
export class ChargingProfilesPlugin extends AsyncModulePlugin<
  ChargingProfilesReceiverPort,
  ChargingProfilesSenderPort,
  ProfileRequestReceiver,
  ProfileRequestSender
> {
  readonly module = "chargingprofiles";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1"];
  readonly portMethods = { RECEIVER: ["connect", "session", "submit"], SENDER: ["onOutcome", "onActiveProfile"] } as const;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) private readonly log: Logger,
    @inject(TOKENS.Store) private readonly store: Store,
    pending: PendingRequests,
    private readonly outbox: Outbox,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
  ) {
    super(pending);
  }

  protected createReceiver(port: ChargingProfilesReceiverPort): ProfileRequestReceiver {
    return new ProfileRequestReceiver(
      port,
      this.pending,
      this.outbox,
      new ProfileSenders(this.store),
      this.registry,
      this.log.child({ module: this.module }),
      asyncTimeoutSeconds(this.config),
    );
  }

  protected createSender(port: ChargingProfilesSenderPort): ProfileRequestSender {
    const log = this.log.child({ module: this.module });
    const client = new ChargingProfilesClient(this.partners, asyncTimeoutSeconds(this.config), log);
    return new ProfileRequestSender(port, this.pending, client, this.registry, this.store, this.config, log);
  }
}
