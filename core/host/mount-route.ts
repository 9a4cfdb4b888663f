import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import type { GatewayConfig, PartyConfig } from "../../config/types";
import type { RequestContext } from "../contract/request-context";
import type { PartnerProfile } from "../contract/partner-profile";
import type { OcpiReply, OcpiRequest, RouteSpec } from "../contract/module-plugin";
import type { PartyRef, VersionNumber } from "../protocol/types";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { LossyTranslationLog } from "../model/lossy";
import type { TolerantReader } from "../model/tolerant-reader";
import type { ResponseCache } from "../cache/response-cache";
import type { ServedModule } from "../modules/served-modules";
import type { StreamedGets } from "./forwarded-get";
import { sameParty } from "../protocol/types";
import { bodyOwnerInScope, ownerInScope } from "../modules/receiver-rules";
import { JSON_CONTENT_TYPE, answerBody } from "./rendered-answer";
import { invalid, invalidFields } from "../contract/errors";
import { routingHeaders } from "../http/routing-headers";
import { admit, type Admission } from "../edge/admit";
import type { PartyScope } from "../contract/party-scope";
import { flatQuery, pageHeaders, parsePageRequest } from "../http/pagination";
import { type PageRequest } from "../contract/page";
import { requestBody } from "../http/json-body";
import type { TranslationContext } from "../contract/object-type";

export interface KernelServices {
  config: GatewayConfig;
  registry: PartnerRegistry;
  lossy: LossyTranslationLog;
  /** reads bodies under the partner's strictness (reject, log, repair) */
  reader: TolerantReader;
  log: Logger;
  /** serves cacheable GETs and invalidates on receiver writes; absent: every request reaches the plugin */
  cache?: ResponseCache;
  /**
   * the hub's forwarding of requests addressed to partners' parties (core/hub/forwarder.ts), before bodies are
   * read, and its forwarded GETs streamed before Koa (core/host/forwarded-get.ts); absent: not a hub
   */
  forward?: { middleware: Middleware; gets: StreamedGets };
}

const EMPTY_PAGE: PageRequest = { offset: 0, limit: 0 };

/**
 * Turns a plugin's RouteSpec into a Koa handler. This is the life of a
 * request after the global middleware: admission (core/edge/admit.ts),
 * parse list parameters, validate and translate the body up to the
 * canonical model, call the plugin, translate the answer down, envelope it.
 */
export const mountRoute = (served: ServedModule, version: VersionNumber, route: RouteSpec, k: KernelServices): Middleware =>
  async (ctx: Context) => {
    const { plugin } = served;
    const admitted = await admit(k, {
      authorization: ctx.get("Authorization"),
      headers: ctx.headers,
      version,
      module: plugin.configurationModule ? undefined : plugin.module,
      access: route.access,
    });
    const { partner, profile, scope, from, to } = admitted;
    const routing = { from, to };
    const party = resolveParty(served.parties, k.config.parties, routing.to);
    const rc = requestContextOf(k.log, served, version, admitted, party, { requestId: ctx.state.requestId, correlationId: ctx.state.correlationId });
    const params = { ...(ctx.params as Record<string, string>) };
    const pathOwner = params.country_code && params.party_id ? ownerInScope(scope, params.country_code, params.party_id) : undefined;
    // 2.1.1 objects lack owner fields: the path's owner, or the partner's first party, fills them in.
    const tx = (name: string) => k.lossy.context(partner.id, name, version, params, pathOwner ?? partner.record.roles[0]);
    const page = route.paginated ? parsePageRequest(ctx.query, profile.maxPageLimit) : EMPTY_PAGE;
    const sender = pathOwner ?? partner.record.roles[0];
    const body = route.body ? await readBody(ctx, route, rc, tx, k.reader, sender) : requestBody(ctx.request as { body?: unknown });

    // Addressed to none of the module's several parties: a GET All answers for all of them (README "Several parties on one gateway").
    const parties = routing.to || served.parties.length < 2 ? undefined : served.parties;
    const owner = route.owner === "body" ? bodyOwnerInScope(scope, body) : pathOwner;
    const request = ocpiRequestOf(rc, scope, { params, query: flatQuery(ctx.query), body, page, owner, parties });
    const reply: OcpiReply = k.cache ? await k.cache.serve(route, request) : await route.handle(request);

    for (const [name, value] of answerHeaders(served, version, profile, party, routing.from, reply)) ctx.set(name, value);
    if (reply.page) for (const [name, value] of pageHeaders(reply.page, page, profile.maxPageLimit, k.config.server.public_url, ctx.path, ctx.query)) ctx.set(name, value);
    ctx.status = reply.httpStatus ?? 200;
    const answer = await answerBody(reply, route, version, tx, pathOwner ?? partner.record.roles[0], k.cache?.memo(reply));
    if (Buffer.isBuffer(answer)) ctx.set("Content-Type", JSON_CONTENT_TYPE);
    ctx.body = answer;
  };

/**
 * What the plugin is told of an admitted request (every entrance that runs a route: mountRoute, and the
 * cached GETs' uncached answer, core/host/cached-get.ts): who asks, in which version and module, for
 * which party of ours, under which ids; its logger made when first used (most requests log nothing, and a
 * child logger serialises its bindings up front).
 */
export const requestContextOf = (
  root: Logger,
  served: ServedModule,
  version: VersionNumber,
  admitted: Pick<Admission, "partner" | "profile" | "from" | "to">,
  party: PartyConfig,
  ids: { requestId: string; correlationId: string },
): RequestContext => new AdmittedRequest(root, served, version, admitted, party, ids);

/** requestContextOf's context: a class, so that its logger's getter is its prototype's and not defined anew on each request's object. */
class AdmittedRequest implements RequestContext {
  readonly requestId: string;
  readonly correlationId: string;
  readonly module: RequestContext["module"];
  readonly role: RequestContext["role"];
  readonly partner: RequestContext["partner"];
  readonly profile: RequestContext["profile"];
  readonly from: RequestContext["from"];
  readonly to: RequestContext["to"];
  private child?: Logger;

  constructor(
    private readonly root: Logger,
    served: ServedModule,
    readonly version: VersionNumber,
    admitted: Pick<Admission, "partner" | "profile" | "from" | "to">,
    readonly party: PartyConfig,
    ids: { requestId: string; correlationId: string },
  ) {
    this.requestId = ids.requestId;
    this.correlationId = ids.correlationId;
    this.module = served.plugin.module;
    this.role = served.role;
    this.partner = admitted.partner;
    this.profile = admitted.profile;
    this.from = admitted.from;
    this.to = admitted.to;
  }

  get log(): Logger {
    return (this.child ??= this.root.child({ requestId: this.requestId, partner: this.partner.id, module: this.module }));
  }
}

/** The request a route's handler gets: its context (requestContextOf), the request's parts, and the port its adapter is called with. */
export const ocpiRequestOf = (
  rc: RequestContext,
  scope: PartyScope,
  parts: Pick<OcpiRequest, "params" | "query" | "body" | "page" | "owner"> & { parties: PartyConfig[] | undefined },
): OcpiRequest => {
  const port = { partnerId: rc.partner.id, party: rc.party, version: rc.version, correlationId: rc.correlationId, scope, parties: parts.parties };
  return { ctx: rc, params: parts.params, query: parts.query, body: parts.body, page: parts.page, owner: parts.owner, port };
};

const readBody = async (
  ctx: Context,
  route: RouteSpec,
  rc: RequestContext,
  tx: (name: string) => TranslationContext,
  reader: TolerantReader,
  sender: PartyRef | undefined,
): Promise<unknown> => {
  const spec = route.body!;
  const raw = requestBody(ctx.request as { body?: unknown });
  if (raw === undefined) {
    if (spec.optional) return undefined;
    throw invalid(`Request body with a ${spec.type.name} is required`);
  }
  checkMediaType(ctx.state.bodyMediaType, rc, reader);
  const { partner, version } = rc;
  const schema = spec.type.schema(version, spec.mode);
  // the request's logger only when a line is written (a getter: a child logger per body cost about 5 µs, most bodies log nothing)
  const read = await reader.read({
    partnerId: partner.id,
    strictness: rc.profile.strictness,
    type: spec.type,
    schema,
    raw,
    sender,
    get log() {
      return rc.log;
    },
  });
  if (!read.ok) throw invalidFields(read.issues);
  const canonical = spec.type.up(read.value, version, tx(spec.type.name));
  // a weighty body's validation and its storing are two pieces (core/http/json-body.ts JsonBody.nextPiece)
  const nextPiece = ctx.state.nextWeightyPiece as (() => Promise<void>) | undefined;
  if (nextPiece) await nextPiece();
  return canonical;
};

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;
/** partner + media type already logged, per gateway (keyed by its TolerantReader), so a lenient partner's every request does not log again */
const loggedMediaTypes = new WeakMap<TolerantReader, Set<string>>();

/**
 * A body must be JSON (Part A: `Content-Type: application/json`). It was
 * parsed as JSON regardless (core/http/json-body.ts), since many partners
 * omit the header, which is accepted; one that names another type is
 * refused under `strictness: reject` and accepted, logged once per partner
 * and type, otherwise.
 */
const checkMediaType = (mediaType: string | undefined, rc: RequestContext, gateway: TolerantReader): void => {
  if (mediaType === undefined || JSON_MEDIA_TYPE.test(mediaType)) return;
  if (rc.profile.strictness === "reject")
    throw invalid(`Content-Type ${mediaType} is not application/json: the body must be sent as JSON`);
  const logged = loggedMediaTypes.get(gateway) ?? new Set<string>();
  loggedMediaTypes.set(gateway, logged);
  const key = `${rc.partner.id}\n${mediaType}`;
  if (logged.has(key)) return;
  logged.add(key);
  rc.log.warn({ contentType: mediaType }, "accepted a body sent with a Content-Type other than JSON (lenient strictness)");
};

/** The routing headers of an answer (2.2+ modules: from us, to the partner's party) and the reply's own headers. */
export const answerHeaders = (
  served: ServedModule,
  version: VersionNumber,
  profile: PartnerProfile,
  party: PartyRef,
  from: PartyRef | undefined,
  reply: OcpiReply,
): [string, string][] => {
  const headers: [string, string][] = [];
  if (!served.plugin.configurationModule && version !== "2.1.1") {
    const to = from ?? (profile.record.roles.length === 1 ? profile.record.roles[0] : undefined);
    headers.push(...Object.entries(routingHeaders(profile.headerPrefix, party, to)));
  }
  if (reply.headers) headers.push(...Object.entries(reply.headers));
  return headers;
};

export const resolveParty = (serving: PartyConfig[], all: PartyConfig[], to?: PartyRef): PartyConfig => {
  if (!to) return serving[0] ?? all[0];
  const party = serving.find((p) => sameParty(p, to));
  if (!party) throw invalid(`to-country-code/to-party-id ${to.country_code}/${to.party_id} is not a party served here`);
  return party;
};
