import { injectable } from "tsyringe";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { Role } from "../../core/protocol/types";
import { TARIFFS_TRANSLATION_LOSSES, tariffType } from "./translate";
import { DataModulePlugin } from "../../core/modules/data-module";
import type { TariffsReceiverPort, TariffsSenderPort } from "./ports";
import { patchRoute, receiverRoutes } from "./receiver";
import { senderRoutes } from "./sender";
import type { SyncSpec } from "../../core/contract/sync-spec";
import type { Tariff } from "./model";
import { TARIFFS_PUSH } from "./push";

/** The tariffs module: data owned by the CPO, pulled from its Sender or pushed to an eMSP's Receiver. */
@injectable()
export class TariffsPlugin extends DataModulePlugin<TariffsSenderPort, TariffsReceiverPort> {
  readonly module = "tariffs";
  readonly translationLosses = TARIFFS_TRANSLATION_LOSSES;
  readonly dataOwner: Role = "CPO";
  readonly portMethods = { SENDER: ["list"], RECEIVER: ["get", "put", "delete"] } as const;
  readonly pushSpec = TARIFFS_PUSH;
  readonly syncSpec: SyncSpec<Tariff, TariffsReceiverPort> = {
    type: tariffType,
    upsert: (port, owner, tariff, ctx) => port.put(owner, tariff, ctx),
  };

  protected senderRoutes(port: TariffsSenderPort): RouteSpec[] {
    return senderRoutes(port);
  }

  protected receiverRoutes(port: TariffsReceiverPort): RouteSpec[] {
    return [...receiverRoutes(port), patchRoute(port)];
  }
}
