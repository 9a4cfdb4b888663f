import type { IncomingMessage, ServerResponse } from "node:http";
import type { OcpiReply, RouteSpec } from "../contract/module-plugin";
import type { PartnerIdentity } from "../contract/request-context";
import { partyKey, type PartyRef, type VersionNumber } from "../protocol/types";
import type { PartyConfig } from "../../config/types";
import type { ResponseCache } from "../cache/response-cache";
import type { ServedModule } from "../modules/served-modules";
import { readRoutingHeaders } from "../http/routing-headers";
import { flatQuery, pageHeaders, parsePageRequest, parseQuery, type Query } from "../http/pagination";
import { pageLength, type PageRequest } from "../contract/page";
import { earlierIds, requestIdsOf } from "../http/request-ids";
import { requestStep, routeOfPath, servedInScope } from "../http/request-scope";
import { Status } from "../protocol/status";
import { answerHeaders, ocpiRequestOf, requestContextOf, resolveParty, type KernelServices } from "./mount-route";
import { admit, admitAtOnce, hasRoutingHeaders, type Admission } from "../edge/admit";
import { JSON_CONTENT_TYPE, answerBody, envelopeBytes, renderedKey, type Rendered } from "./rendered-answer";
import { recordRequest, type RouteScope } from "./access-log";
import { type ObservedRequest } from "../http/observed-request";

interface Target {
  served: ServedModule;
  version: VersionNumber;
  route: RouteSpec;
  /** module and interface, as the access log names them */
  labels: { module: string; interface?: string };
  /**
   * The answer's headers but its ids and length, per cached reply, partner
   * (its identity object, renewed with the registration generation) and
   * request: the same for every request of a partner's crawl.
   */
  headerSets: WeakMap<OcpiReply, HeaderSets>;
  /**
   * The same for pages read anew (not cached), per partner and request and the page's total and length,
   * which are all the headers take from such a reply (one without headers of its own): the same while
   * the list does not change.
   */
  pageHeaderSets: HeaderSets;
}

/** Header sets per partner, under the key of the request (and of the page, for pages read anew). */
type HeaderSets = WeakMap<PartnerIdentity, Map<string, string[]>>;

/** A query string's parse and the page it asks for under one page limit. */
interface ParsedQuery {
  query: Query;
  page: PageRequest;
}

/** The party of ours a request is addressed to, and its routing headers. */
interface Addressed {
  /** the module admission checks; undefined for a configuration module */
  module: string | undefined;
  routing: { from?: PartyRef; to?: PartyRef };
  party: PartyConfig;
}

/** A cached GET to answer: its target, token, party and routing, query, scope and start. */
interface Asked {
  target: Target;
  authorization: string;
  addressed: Addressed;
  path: string;
  queryText: string;
  scope: RouteScope;
  started: bigint;
}

/** What a header set depends on besides the partner and the reply: the request's query and routing, and the party addressed. */
const headerKey = (queryText: string, routing: Addressed["routing"], party: PartyConfig): string =>
  `${queryText}\n${routing.from ? partyKey(routing.from) : ""}\n${partyKey(party)}`;

/** Koa's request handler. */
type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** What handle() answers for a request answered at once (nothing left to settle). */
const ANSWERED: Promise<void> = Promise.resolve();
const EMPTY_PAGE: PageRequest = { offset: 0, limit: 0 };
/** Distinct query strings whose parse is kept; past this the parses start over (a client inventing query strings). */
const MAX_QUERIES = 256;
/** Header sets kept per reply (or for pages read anew) and partner; past this they start over. */
const MAX_HEADER_SETS = 32;

/**
 * Cacheable GETs answered before Koa: a request for a route without path
 * parameters that the response cache serves (`RouteSpec.cache`) is checked
 * exactly as the kernel checks it (authentication, version and module
 * allowed, routing headers, list parameters) and answered with the bytes and
 * headers the kernel would send, written straight to node:http: the cached
 * answer already rendered in the partner's version, or, when there is none
 * (a miss, or a module cached for 0 s), the kernel's own request run here
 * (the cache's read-through, the route's handler, the rendering: a page of
 * stored JSON spliced as it is, core/host/rendered-answer.ts). Its access
 * line and metrics are the kernel's (recordRequest, and the cache counts
 * the hit or the miss).
 *
 * Anything else, or anything that does not check out (no token, a bad
 * header, a cached answer whose fields the translation dropped and has to
 * log, a handler that throws or answers another status than 200), goes to
 * Koa untouched, which answers it with the whole chain, errors included
 * (a handler that threw here runs again there: GETs only read). Nothing is
 * recorded for a request handed on, except its ids, which it keeps
 * (earlierIds). A hub decides on forwarding before the kernel, so there
 * every request goes through Koa.
 */
export class CachedGets {
  private readonly targets = new Map<string, Target>();
  private readonly queries = new Map<string, ParsedQuery>();

  constructor(
    private readonly k: KernelServices & { cache: ResponseCache },
    private readonly modules: ReadonlySet<string>,
    private readonly observe?: (request: ObservedRequest) => void,
  ) {}

  /** A route the router serves at `path`; only cached GETs without path parameters are answered here. */
  add(path: string, served: ServedModule, version: VersionNumber, route: RouteSpec): void {
    // the first route registered for a path is the one the router runs
    if (route.method !== "GET" || !route.cache || path.includes(":") || this.targets.has(path)) return;
    this.targets.set(path, { served, version, route, labels: routeOfPath(path, this.modules), headerSets: new WeakMap(), pageHeaderSets: new WeakMap() });
  }

  /** Answers `req` when it is a cached GET that checks out, else hands it to `next` (Koa); settles when either has. */
  handle(req: IncomingMessage, res: ServerResponse, next: Handler): Promise<void> {
    const url = req.url ?? "";
    const mark = url.indexOf("?");
    const path = mark < 0 ? url : url.slice(0, mark);
    const target = req.method === "GET" ? this.targets.get(path) : undefined;
    // a GET with a body goes through the body parser, as it always did
    if (!target || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined) return next(req, res);
    const started = process.hrtime.bigint();
    const ids = requestIdsOf(req.headers);
    const scope: RouteScope = { module: target.labels.module, interface: target.labels.interface, ...ids };
    const queryText = mark < 0 ? "" : url.slice(mark + 1);
    const handOn = () => {
      earlierIds.set(req, ids);
      return next(req, res);
    };
    const authorization = req.headers.authorization;
    let addressed: Addressed | undefined;
    try {
      addressed = authorization ? this.addressed(target, req) : undefined;
    } catch {
      // a malformed routing header is answered by the kernel, after authentication, as an envelope
      return handOn();
    }
    // no token, or for several parties of ours (never cached): the kernel's
    if (!authorization || !addressed) return handOn();
    const asked: Asked = { target, authorization, addressed, path, queryText, scope, started };
    // a cached answer whose admission and generation are known at once: answered with nothing awaited, outside requestScope
    if (requestStep(scope, () => this.answerNow(asked, req, res))) return ANSWERED;
    return servedInScope(scope, () =>
      this.answer(asked, req, res).then(
        (answered) => (answered ? undefined : handOn()),
        (error: unknown) => {
          // a check that throws is answered by the kernel, as an envelope
          if (!res.headersSent) return handOn();
          // after the answer went out (recording it failed): logged, as Koa logs what fails after its response
          this.k.log.error({ err: error, requestId: ids.requestId, path, method: "GET" }, "unexpected error");
        },
      ),
    );
  }

  /**
   * The party addressed and the routing headers, or undefined when the request is for several parties of
   * ours (never cached). The party does not depend on the partner (a header that does not check out is the
   * kernel's to answer, after authentication: Koa's, so this throws then).
   */
  private addressed(target: Target, req: IncomingMessage): Addressed | undefined {
    const { served, version } = target;
    const { plugin } = served;
    const module = plugin.configurationModule ? undefined : plugin.module;
    const routing = hasRoutingHeaders(version, module) ? readRoutingHeaders(req.headers) : {};
    // addressed to none of several parties of ours: an answer for all of them, never cached
    if (!routing.to && served.parties.length > 1) return undefined;
    return { module, routing, party: resolveParty(served.parties, this.k.config.parties, routing.to) };
  }

  /**
   * `answer` when all it needs is known at once: the admission (admitAtOnce: the registration generation held
   * without a read, which on one Redis is a leased read that came in, and the token and scope of earlier
   * requests, still current), the cache's generation (ResponseCache.generationNow) and a cached answer
   * rendered in the partner's version. False, with nothing sent, for anything else (`answer` then asks again,
   * waiting where it must), a check that throws included.
   */
  private answerNow({ target, authorization, addressed, path, queryText, scope, started }: Asked, req: IncomingMessage, res: ServerResponse): boolean {
    const { k } = this;
    const { served, version, route } = target;
    const { module, routing, party } = addressed;
    try {
      // "" for a module not cached (TTL 0) and none for a route without a cache: nothing to answer at once, so
      // nothing admitted twice (answer admits it)
      const generation = route.cache ? k.cache.generationNow(served.plugin.module, party) : undefined;
      if (!generation) return false;
      const admitted = admitAtOnce(k, { authorization, headers: req.headers, version, module, routing });
      if (!admitted) return false;
      const parsed = this.parse(queryText, route.paginated ? admitted.profile.maxPageLimit : undefined);
      const cached = k.cache.peek(route, { module: served.plugin.module, role: served.role, party, params: {}, page: parsed.page, scope: admitted.scope }, generation);
      if (!cached || cached instanceof Promise) return false;
      return this.sendCached(target, res, cached, admitted, addressed, queryText, parsed, path, scope, started);
    } catch {
      return false;
    }
  }

  private async answer({ target, authorization, addressed, path, queryText, scope, started }: Asked, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const { served, version, route } = target;
    const { plugin } = served;
    const { k } = this;
    const { module, routing, party } = addressed;
    // asked before admission, so on Redis it is read in one round trip with the registration generation (SharedReads)
    const generation = k.cache.generation(plugin.module, party);
    // the kernel's admission, to the letter; whatever it refuses is handed to Koa, which answers the refusal
    const admitted = await admit(k, { authorization, headers: req.headers, version, module, routing }).catch(() => undefined);
    if (!admitted) return false;
    const { partner, scope: partyScope, profile } = admitted;
    const { maxPageLimit } = profile;
    const parsed = this.parse(queryText, route.paginated ? maxPageLimit : undefined);
    const { query, page } = parsed;
    const found = k.cache.peek(route, { module: plugin.module, role: served.role, party, params: {}, page, scope: partyScope }, generation);
    const cached = found instanceof Promise ? await found : found;
    if (cached) return this.sendCached(target, res, cached, admitted, addressed, queryText, parsed, path, scope, started);
    // Not in the cache: the kernel's request (core/host/mount-route.ts) for a GET without path parameters or body, run here.
    const rc = requestContextOf(k.log, served, version, admitted, party, { requestId: scope.requestId!, correlationId: scope.correlationId! });
    const reply = await k.cache.serve(route, ocpiRequestOf(rc, admitted.scope, { params: {}, query: flatQuery(query), body: undefined, page, owner: undefined, parties: undefined }));
    if ((reply.httpStatus ?? 200) !== 200) return false;
    const tx = (name: string) => k.lossy.context(partner.id, name, version, {}, partner.record.roles[0]);
    const memo = k.cache.memo(reply);
    const rendered = await answerBody(reply, route, version, tx, partner.record.roles[0], memo);
    const body = Buffer.isBuffer(rendered) ? rendered : Buffer.from(JSON.stringify(rendered));
    const build = this.headerBuilder(target, reply, admitted, routing, party, page, query, path);
    const headers =
      reply.page && !reply.headers && !memo
        ? this.headersOf(target.pageHeaderSets, partner, `${headerKey(queryText, routing, party)}\n${reply.page.total}\n${pageLength(reply.page)}`, build)
        : build();
    this.send(res, reply, body, headers, path, scope, started);
    return true;
  }

  /** A cached reply, in the partner's version as rendered before: sent, unless it needs Koa (another status, dropped fields: false). */
  private sendCached(target: Target, res: ServerResponse, reply: OcpiReply, admitted: Admission, addressed: Addressed, queryText: string, parsed: ParsedQuery, path: string, scope: RouteScope, started: bigint): boolean {
    const { k } = this;
    const { partner } = admitted;
    const { routing, party } = addressed;
    // another status may have rules of its own for the body (Koa drops it for 204 and 304): Koa answers those
    if ((reply.httpStatus ?? 200) !== 200) return false;
    const rendered = k.cache.memo(reply)?.get(renderedKey(target.version, target.route, partner.record.roles[0])) as Rendered | undefined;
    if (!rendered?.data || rendered.drops.length > 0) return false;
    const body = envelopeBytes(rendered as Rendered & { data: Buffer }, reply.statusCode ?? Status.SUCCESS);
    const { query, page } = parsed;
    let sets = target.headerSets.get(reply);
    if (!sets) target.headerSets.set(reply, (sets = new WeakMap()));
    const headers = this.headersOf(sets, partner, headerKey(queryText, routing, party), this.headerBuilder(target, reply, admitted, routing, party, page, query, path));
    this.send(res, reply, body, headers, path, scope, started);
    k.cache.peekServed(target.served.plugin.module);
    return true;
  }

  /** The answer's headers but its ids and length. */
  private headerBuilder(target: Target, reply: OcpiReply, admitted: Admission, routing: Addressed["routing"], party: PartyConfig, page: PageRequest, query: Query, path: string): () => string[] {
    const { served, version } = target;
    const { profile } = admitted;
    return () => {
      const headers = [...answerHeaders(served, version, profile, party, routing.from, reply)];
      if (reply.page) headers.push(...pageHeaders(reply.page, page, profile.maxPageLimit, this.k.config.server.public_url, path, query));
      return [...headers.flat(), "Content-Type", JSON_CONTENT_TYPE];
    };
  }

  /** Writes the answer to node:http, then its access line and metrics. */
  private send(res: ServerResponse, reply: OcpiReply, body: Buffer, answer: string[], path: string, scope: RouteScope, started: bigint): void {
    const statusCode = reply.statusCode ?? Status.SUCCESS;
    const headers = ["X-Request-ID", scope.requestId!, "X-Correlation-ID", scope.correlationId!, ...answer, "Content-Length", String(body.length)];
    res.writeHead(200, headers).end(body);
    recordRequest(this.k.log, scope, { method: "GET", path, httpStatus: 200, statusCode }, started, this.observe);
  }

  /** The header set `key` of `sets` for a partner, built once by `build`. */
  private headersOf(sets: HeaderSets, partner: PartnerIdentity, key: string, build: () => string[]): string[] {
    let ofPartner = sets.get(partner);
    if (!ofPartner) sets.set(partner, (ofPartner = new Map()));
    let headers = ofPartner.get(key);
    if (!headers) {
      headers = build();
      // past the bound they start over (a client inventing query strings, a list whose total keeps changing)
      if (ofPartner.size >= MAX_HEADER_SETS) ofPartner.clear();
      ofPartner.set(key, headers);
    }
    return headers;
  }

  /** The query and, for a list (`maxLimit` given), its page; throws as parsePageRequest does. */
  private parse(text: string, maxLimit: number | undefined): ParsedQuery {
    const key = `${maxLimit ?? ""}\n${text}`;
    let parsed = this.queries.get(key);
    if (!parsed) {
      const query = parseQuery(text);
      parsed = { query, page: maxLimit === undefined ? EMPTY_PAGE : parsePageRequest(query, maxLimit) };
      if (this.queries.size >= MAX_QUERIES) this.queries.clear();
      this.queries.set(key, parsed);
    }
    return parsed;
  }
}
