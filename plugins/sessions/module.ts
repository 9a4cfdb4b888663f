import { injectable } from "tsyringe";
import type { RouteSpec } from "../../core/plugin";
import { SESSIONS_TRANSLATION_LOSSES, sessionType } from "./translate";
import { DataModulePlugin } from "../../core/modules/data-module";
import type { SessionsReceiverPort, SessionsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/sync/sync-spec";
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
  /** a PATCH's audience (the token's owner) is read from the stored session, through the SENDER port */
  readonly pushSpec = sessionsPush(async (owner, id) => this.ports.SENDER?.get(id, { party: owner }));
  /** the sessions list requires date_from; a pulled Session replaces the stored one whole */
  readonly syncSpec: SyncSpec<Session, SessionsReceiverPort> = {
    type: sessionType,
    dateFromRequired: true,
    upsert: (port, owner, session, ctx) => this.references.sessionsReceiver(port).put(owner, session, ctx),
  };

  /** what is stored is indexed by authorization_reference, for the payments module (FAC links) */
  constructor(private readonly references: AuthorizationReferences) {
    super();
  }

  protected senderRoutes(port: SessionsSenderPort): RouteSpec[] {
    return senderRoutes(port);
  }

  protected receiverRoutes(port: SessionsReceiverPort): RouteSpec[] {
    return receiverRoutes(this.references.sessionsReceiver(port));
  }
}
