import type { Context } from "koa";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../contract/module-plugin";
import type { PartnerIdentity } from "../contract/request-context";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../contract/partner-record";
import type { LossyTranslationLog } from "../model/lossy";
import type { InterfaceRole, PartyRef, VersionNumber } from "../protocol/types";
import { sameParty } from "../protocol/types";
import { Status } from "../protocol/status";
import { OcpiError } from "../contract/errors";
import { envelope } from "../http/envelope";
import { pageHeaders, parsePageRequest } from "../http/pagination";
import { routingHeaders } from "../http/routing-headers";
import { inScope } from "../contract/party-scope";
import { scopeOf } from "../partners/scope-of";
import { callTargetOf } from "../client/call-target";
import type { PartnerProfile } from "../contract/partner-profile";
import { OcpiClient, PartnerCallError } from "../client/ocpi-client";
import { mayForward } from "./hub-config";
import { hubError, opposite } from "./hub-http";
import { matchRoute } from "./route-match";
import type { HubConnections } from "./hub-connections";

export interface MergedListDeps {
  config: GatewayConfig;
  registry: PartnerRegistry;
  connections: HubConnections;
  lossy: LossyTranslationLog;
  log: Logger;
  routesOf(module: string, role: InterfaceRole): readonly RouteSpec[];
}

/** A GET-all addressed to our hub party: who asks, for which module, in which version. */
export interface ListRequest {
  version: VersionNumber;
  module: string;
  sender: PartnerIdentity;
  /** the sender's profile, from the admission */
  profile: PartnerProfile;
  from: PartyRef;
  hub: PartyRef;
}

/** One list merged: a party of a partner, read at the partner's SENDER endpoint of the module. */
interface Source {
  record: PartnerRecord;
  party: PartyRef;
  url: string;
}

/**
 * GET-all through the hub (OCPI 2.2.1 Transport and format, Message routing, "GET All via hub": the request
 * is addressed to the hub, which may merge the objects of many parties; the
 * owner of each is read from its own country_code/party_id). The list is
 * the concatenation of the lists of every party the sender may reach (its
 * `partners[].forward`, both sides' `partners[].modules`) of the opposite
 * role (a CPO's for an eMSP, an eMSP's for a CPO) whose partner is
 * connected and offers the module's SENDER interface, in partner id order.
 * offset/limit apply to that concatenation and the date filters to each
 * list: the hub asks every party for its count (X-Total-Count, limit=1),
 * then only for the objects of the page (following the party's own
 * X-Limit), so a page costs one count per party plus the page. Objects a
 * party sends about another party are dropped: no partner speaks for
 * another. A party that does not answer fails the page (4002/4003): a page
 * that silently lacked one would shift every later offset.
 */
export class MergedLists {
  private readonly client: OcpiClient;

  constructor(private readonly deps: MergedListDeps) {
    const { server } = deps.config;
    this.client = new OcpiClient(server.hub?.forward_timeout_ms ?? server.request_timeout_ms);
  }

  async answer(ctx: Context, request: ListRequest): Promise<void> {
    const { config } = this.deps;
    const maxLimit = request.profile.maxPageLimit;
    const page = parsePageRequest(ctx.query, maxLimit);
    const sources = await this.sources(request);
    const correlationId = ctx.state.correlationId as string | undefined;
    const query = (offset: number, limit: number) => listQuery(ctx, offset, limit);

    const totals = await Promise.all(sources.map(async (source) => (await this.fetch(source, request, query(0, 1), correlationId)).total));
    const windows: Promise<unknown[]>[] = [];
    let start = 0;
    for (const [k, source] of sources.entries()) {
      const from = Math.max(page.offset, start) - start;
      const to = Math.min(page.offset + page.limit, start + totals[k]) - start;
      if (to > from) windows.push(this.window(source, request, from, to, query, correlationId));
      start += totals[k];
    }
    const items = (await Promise.all(windows)).flat();
    const total = totals.reduce((sum, n) => sum + n, 0);
    for (const [header, value] of Object.entries(routingHeaders(request.profile.headerPrefix, request.hub, request.from))) ctx.set(header, value);
    for (const [header, value] of pageHeaders({ items, total }, page, maxLimit, config.server.public_url, ctx.path, ctx.query)) ctx.set(header, value);
    ctx.body = envelope(items);
  }

  /** Every party whose list is merged, in a stable order (partner id, then its roles' order). */
  private async sources(request: ListRequest): Promise<Source[]> {
    const { registry, connections } = this.deps;
    const senderRole = request.sender.record.roles.find((r) => sameParty(r, request.from))?.role;
    const records = [...(await registry.listCurrent())].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const sources: Source[] = [];
    for (const record of records) {
      if (record.id === request.sender.id || record.status !== "registered" || !record.tokenToPartner) continue;
      // 2.1.1 has no routing headers, and its objects name no owner
      if (!record.version || record.version === "2.1.1") continue;
      if (!mayForward(request.profile, record.id)) continue;
      const { modules } = registry.profileOf(record);
      if (modules && !modules.includes(request.module)) continue;
      const endpoint = record.endpoints.find((e) => e.identifier === request.module && e.role === "SENDER");
      if (!endpoint) continue;
      if ((await connections.statusOf(record)) === "OFFLINE") continue;
      for (const party of record.roles)
        if (party.role !== "HUB" && opposite(senderRole, party.role)) sources.push({ record, party: { country_code: party.country_code, party_id: party.party_id }, url: endpoint.url });
    }
    return sources;
  }

  /** Objects [from, to) of a source's list, over as many of its pages as its X-Limit needs. */
  private async window(
    source: Source,
    request: ListRequest,
    from: number,
    to: number,
    query: (offset: number, limit: number) => URLSearchParams,
    correlationId: string | undefined,
  ): Promise<unknown[]> {
    const scope = await scopeOf(this.deps.config, this.deps.registry, source.record);
    const items: unknown[] = [];
    for (let offset = from; offset < to; ) {
      const { data } = await this.fetch(source, request, query(offset, to - offset), correlationId);
      if (data.length === 0) break;
      const taken = data.slice(0, to - offset);
      offset += data.length;
      for (const item of taken) {
        const owner = item as Partial<PartyRef> | null;
        if (typeof owner?.country_code !== "string" || typeof owner.party_id !== "string" || !inScope(scope, owner as PartyRef)) {
          this.deps.log.warn({ partner: source.record.id, module: request.module }, "hub: an object of another party in a partner's list was left out of the merged list");
          continue;
        }
        items.push(this.translated(item, source, request));
      }
    }
    return items;
  }

  /** Data of the source's version in the sender's: up to the canonical model and down again. */
  private translated(item: unknown, source: Source, request: ListRequest): unknown {
    const version = source.record.version!;
    if (version === request.version) return item;
    const type = matchRoute(this.deps.routesOf(request.module, "SENDER"), "GET", version, "")?.route.response;
    if (!type) return item;
    const { lossy } = this.deps;
    const canonical = type.up(item, version, lossy.context(source.record.id, type.name, version, {}, source.party));
    return type.down(canonical, request.version, lossy.context(request.sender.id, type.name, request.version, {}, source.party));
  }

  /** One page of a source's list; its count from X-Total-Count. */
  private async fetch(source: Source, request: ListRequest, query: URLSearchParams, correlationId: string | undefined): Promise<{ data: unknown[]; total: number }> {
    const { record } = source;
    const url = new URL(source.url);
    url.search = query.toString();
    const name = `${source.party.country_code}/${source.party.party_id}`;
    let result: Awaited<ReturnType<OcpiClient["call"]>>;
    try {
      result = await this.client.call("GET", callTargetOf(this.deps.registry.profileOf(record), url.toString(), { from: request.from, to: source.party, correlationId }));
    } catch (error) {
      throw await this.failure(error, source, name);
    }
    void this.deps.connections.reached(record.id, true).catch(() => undefined);
    const total = Number(result.headers.get("x-total-count"));
    const data = result.envelope.data;
    if (!Array.isArray(data) || !Number.isInteger(total) || total < 0 || result.headers.get("x-total-count") === null)
      throw hubError(Status.HUB_ERROR, `The list of ${name} came without a list or X-Total-Count`);
    return { data, total };
  }

  /** The source's own 2xxx/3xxx are passed on (OCPI 2.2.1 Transport and format, Message routing); no answer is 4002 or 4003. */
  private async failure(error: unknown, source: Source, name: string): Promise<unknown> {
    if (!(error instanceof PartnerCallError)) return error;
    if (error.kind === "ocpi" && error.statusCode !== undefined)
      return new OcpiError(error.statusCode, `The list of ${name}: ${error.answer ?? `status_code ${error.statusCode}`}`, error.httpStatus ?? 200);
    if (error.kind === "timeout" || error.kind === "unreachable") await this.deps.connections.reached(source.record.id, false).catch(() => undefined);
    if (error.kind === "timeout") return hubError(Status.HUB_TIMEOUT, `${name} did not answer in time`);
    return hubError(Status.HUB_CONNECTION_PROBLEM, `${name} could not be read (${error.kind})`);
  }
}

/** The sender's filters (date_from, date_to and any other) with the offset and limit of one call. */
const listQuery = (ctx: Context, offset: number, limit: number): URLSearchParams => {
  const params = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(ctx.querystring)) if (key !== "offset" && key !== "limit") params.append(key, value);
  params.set("offset", String(offset));
  params.set("limit", String(limit));
  return params;
};
