import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { ResponseUrlSpot, RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { Store } from "../../core/contract/store";
import type { InterfaceRole, VersionNumber } from "../../core/protocol/types";
import { AsyncModulePlugin, type PendingSpec } from "../../core/async/async-module";
import { TOKENS } from "../../core/contract/injection-tokens";
import { PendingRequests } from "../../core/async/pending-requests";
import { asyncTimeoutSeconds } from "../../core/async/outgoing";
import { Outbox } from "../../core/outbox/outbox";
import { PartnerClient } from "../../core/client/partner-client";
import { PartnerRegistry } from "../../core/partners/partner-registry";
import type { ChargingProfileResult } from "./model";
import type { ChargingProfilesReceiverPort, ChargingProfilesSenderPort } from "./ports";
import { receivedProfileRequestsSpec, receiverAdminRoutes, receiverRoutes, type ReceivedProfileData } from "./receiver";
import { SENT_PROFILE_REQUESTS_SPEC, senderAdminRoutes, senderRoutes } from "./sender";
import { ProfileSenders } from "./subscriptions";
import { ChargingProfilesClient } from "./client";

/**
 * The chargingprofiles module (2.2+): a CPO takes requests about the
 * charging profile of a session (RECEIVER); a Smart Charging party issues
 * them through the gateway and takes results and active-profile updates
 * (SENDER). Results are asynchronous and kept pending in the store (core/async).
 */
@injectable()
export class ChargingProfilesPlugin extends AsyncModulePlugin<ChargingProfilesSenderPort, ChargingProfilesReceiverPort> {
  readonly module = "chargingprofiles";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1"];
  /** not in 2.1.1, whose one URL per module the data owner chooses */
  readonly dataOwner = undefined;
  readonly portMethods = { SENDER: ["onOutcome", "onActiveProfile"], RECEIVER: ["connect", "session", "submit"] } as const;

  /**
   * A request to the CPO's RECEIVER carries its response_url: a PUT of a profile in its body
   * (SetChargingProfile), a GET of the active profile and a DELETE in the query (Charging Profiles module,
   * Receiver interface); each result is posted to the sender's `/results`.
   */
  responseUrlOf(role: InterfaceRole, method: string): ResponseUrlSpot | undefined {
    if (role !== "RECEIVER") return undefined;
    if (method === "PUT") return { where: "body", resultRest: "/results/relay" };
    if (method === "GET" || method === "DELETE") return { where: "query", resultRest: "/results/relay" };
    return undefined;
  }
  readonly received: PendingSpec<ChargingProfilesReceiverPort, ReceivedProfileData, ChargingProfileResult>;
  readonly sent = SENT_PROFILE_REQUESTS_SPEC;
  private readonly log: Logger;
  /** the partners that set a profile on a session, which alone get its active-profile updates */
  private readonly senders: ProfileSenders;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Logger) log: Logger,
    @inject(TOKENS.Store) private readonly store: Store,
    pending: PendingRequests,
    private readonly outbox: Outbox,
    private readonly partners: PartnerClient,
    private readonly registry: PartnerRegistry,
  ) {
    super(pending);
    this.log = log.child({ module: this.module });
    this.senders = new ProfileSenders(store);
    this.received = receivedProfileRequestsSpec(this.senders, outbox, this.log);
  }

  protected senderRoutes(port: ChargingProfilesSenderPort): RouteSpec[] {
    return senderRoutes(port, this.pending, this.log);
  }

  protected receiverRoutes(port: ChargingProfilesReceiverPort): RouteSpec[] {
    return receiverRoutes(port, this.pending, asyncTimeoutSeconds(this.config));
  }

  protected senderAdminRoutes(): AdminRoute[] {
    const client = new ChargingProfilesClient(this.partners, asyncTimeoutSeconds(this.config), this.log);
    return senderAdminRoutes({ pending: this.pending, client, registry: this.registry, store: this.store, config: this.config });
  }

  protected receiverAdminRoutes(): AdminRoute[] {
    return receiverAdminRoutes({ senders: this.senders, registry: this.registry, outbox: this.outbox, log: this.log });
  }
}
