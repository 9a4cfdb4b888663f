import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { InterfaceRole } from "../../core/protocol/types";
import { TOKENS } from "../../core/contract/injection-tokens";
import { ChangeFeed } from "../../core/contract/change-feed";
import { ModuleCatalog } from "../../core/modules/module-catalog";
import { locationLookup } from "../locations/location-lookup";
import { SessionLocations } from "./session-location";
import { SESSIONS_TRANSLATION_LOSSES, sessionType } from "./translate";
import { DataModulePlugin } from "../../core/modules/data-module";
import type { SessionsReceiverPort, SessionsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { Session } from "./model";
import { sessionsPush } from "./push";
import { AuthorizationReferences } from "../payments/authorization-references";

/** The Sessions module (data owner CPO): sender list + charging preferences, receiver GET/PUT/PATCH. */
@injectable()
export class SessionsPlugin extends DataModulePlugin<SessionsSenderPort, SessionsReceiverPort> {
  readonly module = "sessions";
  readonly translationLosses = SESSIONS_TRANSLATION_LOSSES;
  readonly dataOwner = "CPO" as const;
  readonly portMethods = { SENDER: ["list", "get", "setChargingPreferences"], RECEIVER: ["get", "put"] } as const;
  /**
   * a PATCH's audience (the token's owner) is read from the stored session, through the SENDER port; a resync's
   * sessions get their Location for 2.1.1 partners as pushed changes do (connect)
   */
  readonly pushSpec = sessionsPush(
    async (owner, id) => this.ports.SENDER?.get(id, { party: owner }),
    (sessions) => this.locations.attachAll(sessions),
  );
  /** our sessions' Locations, from our Locations module, for 2.1.1 partners (session-location.ts) */
  private readonly locations: SessionLocations;
  /** the sessions list requires date_from; a pulled Session replaces the stored one whole */
  readonly syncSpec: SyncSpec<Session, SessionsReceiverPort> = {
    type: sessionType,
    dateFromRequired: true,
    upsert: (port, owner, session, ctx) => this.references.sessionsReceiver(port).put(owner, session, ctx),
  };

  /** what is stored is indexed by authorization_reference, for the payments module (FAC links) */
  constructor(
    private readonly references: AuthorizationReferences,
    @inject(TOKENS.Config) config: GatewayConfig,
    @inject(TOKENS.Logger) log: Logger,
    catalog: ModuleCatalog,
    private readonly changes: ChangeFeed,
  ) {
    super();
    this.locations = new SessionLocations(locationLookup(catalog, "SENDER"), config.parties, log.child({ module: "sessions" }));
  }

  /** Our sessions' changes get their Location before they are pushed (subscribed ahead of the push fan-out: SessionLocations.onChange). */
  connect(role: InterfaceRole, port: unknown): void {
    super.connect(role, port);
    if (role === "SENDER") this.changes.subscribe((change) => this.locations.onChange(change));
  }

  protected senderRoutes(port: SessionsSenderPort): RouteSpec[] {
    return senderRoutes(port, this.locations);
  }

  protected receiverRoutes(port: SessionsReceiverPort): RouteSpec[] {
    return receiverRoutes(this.references.sessionsReceiver(port));
  }
}
