import type { GatewayConfig } from "../../config/types";
import type { Store } from "../../core/contract/store";
import type { ClientInfo } from "../../core/hub/client-info";
import type { SyncSpec } from "../../core/contract/sync-spec";
import { isConfiguredHub } from "../../core/partners/configured-hub";
import { clientInfoType } from "./client-info-type";
import { aboutOurParty, storeReceived } from "./received";

/**
 * A hub's hubclientinfo SENDER list, pulled (OCPI 2.2.1 HubClientInfo module, Interfaces: a hub may serve its
 * ClientInfo as a list instead of pushing it, or both): at the hub's registration, so a hub that only lists is
 * heard from then on, and on `partners[].sync.hubclientinfo`, incrementally with `date_from`. What is pulled is
 * taken as a push of it would be: stored where pushed ClientInfo is, only from a partner configured as a hub,
 * about parties in its scope (the kernel checks the owner), ClientInfo about our own parties ignored.
 */
export const clientInfoSync = (config: GatewayConfig, store: Store): SyncSpec<ClientInfo> => ({
  type: clientInfoType,
  atRegistration: true,
  refuses: (partner) =>
    isConfiguredHub(partner) ? undefined : "is not configured as a hub (partners[].roles lists no HUB): only a hub reports ClientInfo",
  ignore: (info) => aboutOurParty(config, info),
  upsert: (_port, _owner, info, ctx) => storeReceived(store, ctx.partnerId!, info),
});
