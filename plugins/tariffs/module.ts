import { injectable } from "tsyringe";
import type { ModulePlugin, RouteSpec } from "../../core/plugin";
import type { InterfaceRole, Role, VersionNumber } from "../../core/protocol/types";
import { portNameOf } from "../../core/plugin";
import type { TariffsReceiverPort, TariffsSenderPort } from "./ports";
import { patchRoute, receiverRoutes } from "./receiver";
import { senderRoutes } from "./sender";
import type { SyncSpec } from "../../core/sync/sync-spec";
import type { Tariff } from "./model";
import { tariffType } from "./translate";
import { TARIFFS_PUSH } from "./push";

/** The tariffs module: data owned by the CPO, pulled from its Sender or pushed to an eMSP's Receiver. */
@injectable()
export class TariffsPlugin implements ModulePlugin {
  readonly module = "tariffs";
  readonly versions: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
  readonly roles: readonly InterfaceRole[] = ["SENDER", "RECEIVER"];
  readonly dataOwner: Role = "CPO";
  readonly pushSpec = TARIFFS_PUSH;
  readonly syncSpec: SyncSpec<Tariff> = {
    type: tariffType,
    upsert: (port, owner, tariff, ctx) => (port as TariffsReceiverPort).put(owner, tariff, ctx),
  };

  portName(role: InterfaceRole): string {
    return portNameOf(this.module, role);
  }

  routes(role: InterfaceRole, port: unknown): RouteSpec[] {
    if (role === "SENDER") return senderRoutes(port as TariffsSenderPort);
    const receiver = port as TariffsReceiverPort;
    return [...receiverRoutes(receiver), patchRoute(receiver)];
  }
}
