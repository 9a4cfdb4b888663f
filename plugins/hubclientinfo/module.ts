import { inject, injectable } from "tsyringe";
import type { GatewayConfig } from "../../config/types";
import type { InterfaceRole, VersionNumber } from "../../core/protocol/types";
import type { ModulePlugin, OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { Store } from "../../core/contract/store";
import type { ClientInfo } from "../../core/hub/client-info";
import type { SyncSpec } from "../../core/contract/sync-spec";
import { TOKENS } from "../../core/contract/injection-tokens";
import { sameParty } from "../../core/protocol/types";
import { inScope } from "../../core/contract/party-scope";
import { isConfiguredHub } from "../../core/partners/configured-hub";
import { invalid, notFound, OcpiError } from "../../core/contract/errors";
import { Status } from "../../core/protocol/status";
import { written } from "../../core/modules/receiver-writes";
import { HubConnections } from "../../core/hub/hub-connections";
import { isHub } from "../../core/hub/hub-config";
import { clientInfoType } from "./client-info-type";
import { aboutOurParty, allReceived, getReceived, storeReceived } from "./received";
import { clientInfoSync } from "./sync";

/** Path of one party's ClientInfo. Not `:country_code/:party_id`: the kernel's owner check would refuse our own parties. */
const PARTY_PATH = "/:cc/:pid";

/**
 * hubclientinfo (2.2+, a configuration module: no routing headers), both sides:
 * - RECEIVER, when a partner is configured as a hub: the ClientInfo a hub partner (`partners[].roles`
 *   lists HUB) pushes about the parties reachable through it, or lists on its SENDER interface (pulled at
 *   its registration and on `partners[].sync.hubclientinfo`: sync.ts), stored in one place and shown
 *   in the admin API (`GET /admin/v1/hubclientinfo`);
 * - SENDER, when the gateway is a hub (core/hub/hub-config.ts): the ClientInfo
 *   of every partner's party, paginated (core/hub/hub-connections.ts keeps
 *   it and pushes its changes).
 */
@injectable()
export class HubClientInfoPlugin implements ModulePlugin {
  readonly module = "hubclientinfo";
  readonly versions: readonly VersionNumber[] = ["2.2.1", "2.3.0"];
  readonly roles: readonly InterfaceRole[];
  readonly configurationModule = true;
  readonly syncSpec: SyncSpec<ClientInfo>;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Store) private readonly store: Store,
    private readonly hub: HubConnections,
  ) {
    // the list when we are a hub; the receiver when a partner is configured as one (else nothing is served)
    const roles: InterfaceRole[] = [];
    if (isHub(config)) roles.push("SENDER");
    if (config.partners.some(isConfiguredHub)) roles.push("RECEIVER");
    this.roles = roles;
    this.syncSpec = clientInfoSync(config, store);
  }

  portName(): undefined {
    return undefined;
  }

  routes(role: InterfaceRole): RouteSpec[] {
    return role === "SENDER" ? this.senderRoutes() : this.receiverRoutes();
  }

  private senderRoutes(): RouteSpec[] {
    return [
      {
        method: "GET",
        path: "",
        paginated: true,
        response: clientInfoType,
        handle: async (req) => ({ page: await this.hub.list(req.page) }),
      },
    ];
  }

  private receiverRoutes(): RouteSpec[] {
    return [
      {
        method: "GET",
        path: PARTY_PATH,
        response: clientInfoType,
        handle: async (req) => {
          const stored = await getReceived(this.store, req.ctx.partner.id, this.partyOf(req));
          if (!stored) throw notFound("ClientInfo");
          return { data: stored.info };
        },
      },
      {
        method: "PUT",
        path: PARTY_PATH,
        body: { type: clientInfoType, mode: "full" },
        handle: async (req: OcpiRequest<ClientInfo>) => {
          const partner = req.ctx.partner;
          if (!isConfiguredHub(partner.config))
            throw new OcpiError(Status.INVALID_PARAMETERS, "only a partner configured as a hub (partners[].roles lists HUB) pushes ClientInfo", 403);
          const party = this.partyOf(req);
          if (!sameParty(party, req.body)) throw invalid(`/country_code, /party_id: must be the path's ${party.country_code}/${party.party_id}`);
          // Taken and ignored, so the hub's queue does not stall on it.
          if (aboutOurParty(this.config, party)) return written();
          if (!inScope(req.port.scope, party)) throw invalid(`${party.country_code}/${party.party_id} is not one of the partner's parties`);
          const outcome = await storeReceived(this.store, partner.id, req.body);
          return written(outcome);
        },
      },
    ];
  }

  adminRoutes(role: InterfaceRole): AdminRoute[] {
    if (role !== this.roles[0]) return [];
    return [
      {
        method: "GET",
        path: "/hubclientinfo",
        handle: async () => ({
          data: {
            // what hubs told us: each party's connection status, per hub
            received: (await allReceived(this.store)).map((r) => ({ partner: r.partner, ...r.info, received_at: r.received_at })),
            // what we publish as a hub
            published: isHub(this.config) ? (await this.hub.list({ offset: 0, limit: 100_000 })).items : [],
          },
        }),
      },
    ];
  }

  private partyOf(req: OcpiRequest): { country_code: string; party_id: string } {
    const { cc, pid } = req.params;
    if (!/^[A-Za-z]{2}$/.test(cc) || !/^[A-Za-z0-9]{3}$/.test(pid)) throw invalid("path: country_code must be 2 letters and party_id 3 characters");
    return { country_code: cc.toUpperCase(), party_id: pid.toUpperCase() };
  }
}
