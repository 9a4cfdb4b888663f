import { injectable } from "tsyringe";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import type { InterfaceRole, VersionNumber } from "../../core/protocol/types";
import { portNameOf } from "../../core/plugin";
import type { SessionsReceiverPort, SessionsSenderPort } from "./ports";
import { senderRoutes } from "./sender";
import { receiverRoutes } from "./receiver";
import type { SyncSpec } from "../../core/sync/sync-spec";
import type { Session } from "./model";
import { sessionType } from "./translate";
import { SESSIONS_PUSH } from "./push";

/** The Sessions module (data owner CPO): sender list + charging preferences, receiver GET/PUT/PATCH. */
@injectable()
export class SessionsPlugin implements ModulePlugin {
  readonly module = "sessions";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner = "CPO" as const;
  readonly pushSpec = SESSIONS_PUSH;
  /** the sessions list requires date_from; a pulled Session replaces the stored one whole */
  readonly syncSpec: SyncSpec<Session> = {
    type: sessionType,
    dateFromRequired: true,
    upsert: (port, owner, session, ctx) => (port as SessionsReceiverPort).put(owner, session, ctx),
  };

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    return role === "SENDER" ? senderRoutes(port as SessionsSenderPort) : receiverRoutes(port as SessionsReceiverPort);
  }
}
