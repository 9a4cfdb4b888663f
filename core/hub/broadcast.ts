import type { Context } from "koa";
import type { ModulePlugin } from "../contract/module-plugin";
import type { EnqueueRequest } from "../outbox/outbox-message";
import type { PartyRef } from "../protocol/types";
import { sameParty } from "../protocol/types";
import { invalid } from "../contract/errors";
import { envelope } from "../http/envelope";
import { routingHeaders } from "../http/routing-headers";
import { opposite } from "./hub-http";
import { mayForward } from "./hub-config";
import type { MatchedRoute } from "./route-match";
import type { Inbound } from "./inbound";
import { readSenderBody } from "./sender-body";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { LossyTranslationLog } from "../model/lossy";
import type { TolerantReader } from "../model/tolerant-reader";
import type { Outbox } from "../outbox/outbox";


/**
 * Whether a push of `plugin`'s module addressed to the hub party is broadcast: data for everyone (OCPI 2.2.1
 * Transport and format, Message routing), which the module says by pushing its own changes to every entitled
 * partner (a push spec without `audience`: Locations, Tariffs, Tokens). A Session or CDR belongs to one eMSP
 * (its push spec names the token's owner), and broadcasting it would hand it to every other one.
 */
const broadcastable = (plugin: ModulePlugin | undefined): boolean => plugin?.pushSpec !== undefined && plugin.pushSpec.audience === undefined;

/**
 * A hub's broadcast (OCPI 2.2.1 Transport and format, Message routing: a push addressed to the hub party): the
 * object, read under the sender's strictness and made canonical, queued in the outbox for every registered
 * partner of the opposite role with the module's RECEIVER interface, rendered for each at delivery.
 */
/** What a broadcast needs of the hub (a part of the forwarder's ForwardingDeps). */
export interface BroadcastDeps {
  config: GatewayConfig;
  registry: PartnerRegistry;
  outbox: Outbox;
  lossy: LossyTranslationLog;
  reader: TolerantReader;
  log: Logger;
  pluginOf(module: string): ModulePlugin | undefined;
}

export class HubBroadcast {
  constructor(
    private readonly deps: BroadcastDeps,
    private readonly hubParties: readonly PartyRef[],
  ) {}

  /** A push addressed to our hub party: queued for every partner of the opposite role with the module's RECEIVER interface. */
  async push(ctx: Context, inbound: Inbound, found: MatchedRoute | undefined): Promise<void> {
    const { registry } = this.deps;
    // 2001, not a 4xxx: a sender's outbox retries hub errors, and this one is final
    if (!broadcastable(this.deps.pluginOf(inbound.module))) throw invalid(`A ${inbound.module} push is one party's, never broadcast: address it to that party`);
    const senderRole = inbound.sender.record.roles.find((r) => sameParty(r, inbound.from))?.role;
    const audience = (await registry.listCurrent()).filter(
      (r) =>
        r.id !== inbound.sender.id &&
        r.status === "registered" &&
        r.version !== undefined &&
        r.version !== "2.1.1" &&
        mayForward(inbound.profile, r.id) &&
        (registry.profileOf(r).modules?.includes(inbound.module) ?? true) &&
        r.endpoints.some((e) => e.identifier === inbound.module && e.role === "RECEIVER") &&
        r.roles.some((role) => opposite(senderRole, role.role)),
    );
    const body = await readSenderBody(this.deps, ctx, inbound, found);
    const canonical = body?.canonical();
    const hub = this.hubParties.find((p) => sameParty(p, inbound.to))!;
    const query: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(ctx.querystring)) query[key] = value;
    // The canonical object, rendered for each receiver's version and config when it is delivered (core/outbox/queued-object.ts):
    // its path below the owner's country_code/party_id names its object type, as a push's does.
    const object =
      body?.type && canonical !== undefined
        ? { path: inbound.rest.split("/").filter(Boolean).slice(2).map(decodeURIComponent), value: canonical, owner: inbound.from }
        : undefined;
    const messages: EnqueueRequest[] = audience.map((partner) => {
      const to = partner.roles.find((role) => opposite(senderRole, role.role)) ?? partner.roles[0];
      return {
        partnerId: partner.id,
        request: {
          method: ctx.method as EnqueueRequest["request"]["method"],
          target: { module: inbound.module, role: "RECEIVER", path: inbound.rest, query },
          ...(object ? { object } : { body: canonical }),
          // hub → each receiver: from the hub (OCPI 2.2.1 Transport and format, Message routing); the object's own path keeps the original owner
          from: { country_code: hub.country_code, party_id: hub.party_id },
          to: { country_code: to.country_code, party_id: to.party_id },
        },
        label: `broadcast ${ctx.method} ${inbound.module}${inbound.rest} from ${inbound.from.country_code}/${inbound.from.party_id}`,
      };
    });
    await this.deps.outbox.enqueueAll(messages);
    this.deps.log.info({ module: inbound.module, receivers: audience.map((r) => r.id) }, "hub: broadcast push queued");
    ctx.status = 200;
    for (const [header, value] of Object.entries(routingHeaders(inbound.profile.headerPrefix, hub, inbound.from))) ctx.set(header, value);
    ctx.body = envelope(null);
  }
}
