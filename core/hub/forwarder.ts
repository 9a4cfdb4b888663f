import type { ClientRequest, IncomingMessage } from "node:http";
import httpProxy from "http-proxy";
import { request } from "undici";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import type { GatewayConfig, HeaderPrefix } from "../../config/types";
import type { ModulePlugin, ResponseUrlSpot, RouteSpec } from "../contract/module-plugin";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../contract/partner-record";
import type { LossyTranslationLog } from "../model/lossy";
import type { TolerantReader } from "../model/tolerant-reader";
import type { Outbox } from "../outbox/outbox";
import type { InterfaceRole, PartyRef, VersionNumber } from "../protocol/types";
import type { Store } from "../contract/store";
import { partyKey, sameParty } from "../protocol/types";
import { Status } from "../protocol/status";
import { OcpiError, invalid } from "../contract/errors";
import { ocpiTimestamp } from "../http/envelope";
import { bodyLimitsOf, bodyTooLarge, byteLimited, lingerAfterRefusal } from "../http/body-limits";
import { admit, routingBeforeAdmission } from "../edge/admit";
import { needsPublicAddress, outboundProblem } from "../partners/outbound-policy";
import { callHeaders, callTargetOf, encodingsOf } from "../client/call-target";
import { GuardedDispatchers, OutboundAddressError } from "../client/guarded-dispatcher";
import { safeUrl } from "../client/ocpi-client";
import { ForwardAgents } from "./forward-agents";
import { hubError } from "./hub-http";
import { matchRoute, type MatchedRoute } from "./route-match";
import { MergedLists } from "./merged-list";
import { RELAY_PATH, ResultRelay } from "./result-relay";
import { mayForward } from "./hub-config";
import type { HubConnections } from "./hub-connections";
import type { ConnectionStatus } from "./client-info";
import { Recent } from "./recent";
import { HubBroadcast } from "./broadcast";
import type { Inbound } from "./inbound";
import { readSenderBody } from "./sender-body";
import { REQUEST_HEADERS, answerHeaders, flatten, lower } from "./forward-headers";

export interface ForwardingDeps {
  config: GatewayConfig;
  store: Store;
  registry: PartnerRegistry;
  connections: HubConnections;
  outbox: Outbox;
  lossy: LossyTranslationLog;
  reader: TolerantReader;
  log: Logger;
  /** the route specs of a module's interface (its plugin's), for the object types of bodies and answers */
  routesOf(module: string, role: InterfaceRole): readonly RouteSpec[];
  /** the plugin of a module, whether or not this gateway serves it: what the module declares of itself */
  pluginOf(module: string): ModulePlugin | undefined;
}

/** Module paths of the versions that have routing headers; 2.1.1 has none, so nothing there is forwarded. */
const MODULE_PATH = /^\/ocpi\/(2\.2\.1|2\.3\.0)\/(sender|receiver)\/([A-Za-z0-9_-]+)(\/[^?]*)?$/;

/** One forwarded request, as the proxy's event handlers need it. */
interface Exchange {
  headers: Record<string, string>;
  senderPrefix: HeaderPrefix;
  /** base of the rewritten Link headers: our URL of the path the sender called */
  linkBase: string;
  timeoutMs: number;
  timedOut: boolean;
  target: PartnerRecord;
  /** the request to the receiver, once http-proxy has made it */
  outgoing?: ClientRequest;
  /** the body passed the byte limit: the request to the receiver is broken off, the sender answered 413 */
  cutOff: boolean;
  /** lets the sender's body flow to the receiver: only once its request's headers are ours */
  startBody?: () => void;
}

/**
 * The gateway as a hub (README "Hubs and forwarding"): a request to a
 * module whose to-party is a party of a registered partner rather than one
 * of ours is forwarded to that partner, when `partners[].forward` of the
 * sender allows it. The receiver gets the partner's own token (in its token
 * encoding), a new X-Request-ID, the same X-Correlation-ID and the original
 * from- and to-headers; the sender gets the receiver's answer, its 2xxx and
 * 3xxx included, with its own ids and the Link header pointing at us.
 *
 * Same version on both sides: streamed through http-proxy, never buffered.
 * Different versions: the body is parsed, checked under the sender's
 * strictness and translated (up, then down: core/model/object-type.ts), and
 * so is the answer's data. A push addressed to our hub party is a broadcast:
 * queued in the outbox for every partner of the opposite role that has the
 * module's RECEIVER interface.
 *
 * Isolation (core/partners/party-scope.ts): the from-party must be in the
 * sender's scope, and the receiver is only ever a partner the sender may
 * reach by config; the sender's token never leaves the hub.
 */
export class Forwarder {
  private readonly proxy = httpProxy.createProxyServer({ changeOrigin: true, ignorePath: true, xfwd: false });
  private readonly agents = new ForwardAgents();
  private readonly dispatchers = new GuardedDispatchers();
  private readonly exchanges = new WeakMap<IncomingMessage, Exchange>();
  private readonly hubParties: PartyRef[];
  readonly relay: ResultRelay;
  /** receivers' status, read at most once a second (core/hub/recent.ts); registrations are the current generation's (listCurrent) */
  private readonly statuses = new Recent<ConnectionStatus>(1_000);
  private readonly merged: MergedLists;
  private readonly broadcasts: HubBroadcast;

  constructor(private readonly deps: ForwardingDeps) {
    const { config } = deps;
    this.relay = new ResultRelay(deps);
    this.merged = new MergedLists(deps);
    this.hubParties = config.parties.filter((p) => p.role === "HUB" || (config.server.hub_party_id !== undefined && partyKey(p) === config.server.hub_party_id.toUpperCase()));
    this.broadcasts = new HubBroadcast(deps, this.hubParties);
    this.proxy.on("proxyReq", (proxyReq, req) => {
      const exchange = this.exchanges.get(req);
      if (!exchange) return;
      exchange.outgoing = proxyReq;
      if (exchange.cutOff) return void proxyReq.destroy();
      for (const name of proxyReq.getHeaderNames()) if (!REQUEST_HEADERS.has(name)) proxyReq.removeHeader(name);
      for (const [name, value] of Object.entries(exchange.headers)) proxyReq.setHeader(name, value);
      proxyReq.setTimeout(exchange.timeoutMs, () => {
        exchange.timedOut = true;
        proxyReq.destroy();
      });
      exchange.startBody?.();
    });
    this.proxy.on("proxyRes", (proxyRes, req) => {
      const exchange = this.exchanges.get(req);
      if (!exchange) return;
      proxyRes.headers = answerHeaders(proxyRes.headers, exchange.senderPrefix, exchange.linkBase);
      void this.deps.connections.reached(exchange.target.id, true).catch(() => undefined);
    });
    // An error with no callback would be emitted here; every call passes one, this only keeps a stray one from crashing.
    this.proxy.on("error", (error) => deps.log.warn({ err: error }, "hub: forwarding error"));
  }

  /** where a request of the module carries its response_url, as its plugin declares (commands, charging profiles) */
  private responseUrlOf(module: string, role: InterfaceRole, method: string, rest: string): ResponseUrlSpot | undefined {
    return this.deps.pluginOf(module)?.responseUrlOf?.(role, method, rest);
  }

  middleware(): Middleware {
    return async (ctx, next) => {
      if (ctx.path.startsWith(RELAY_PATH)) return this.relay.receive(ctx);
      const match = MODULE_PATH.exec(ctx.path);
      if (!match) return next();
      const version = match[1] as VersionNumber;
      const module = match[3];
      const request = { authorization: ctx.get("Authorization"), headers: ctx.headers, version, module };
      const routing = await routingBeforeAdmission(this.deps, request);
      const to = routing.to;
      if (!to) return next();
      const toHub = this.hubParties.some((p) => sameParty(p, to));
      // an asynchronous request has one receiver to post its result: never broadcast
      const broadcast = toHub && ctx.method !== "GET" && match[2] === "receiver" && !this.responseUrlOf(module, "RECEIVER", ctx.method, match[4] ?? "");
      const mergedList = toHub && ctx.method === "GET" && match[2] === "sender" && (match[4] ?? "") === "";
      if (!broadcast && !mergedList && this.deps.config.parties.some((p) => sameParty(p, to))) return next();

      // the edge's admission, as for every other entrance; a request through the hub always has a from-party
      const admitted = await admit(this.deps, { ...request, routing, from: "required" });
      const sender = admitted.partner;
      const from = admitted.from!;
      const inbound: Inbound = { version, role: match[2] === "sender" ? "SENDER" : "RECEIVER", module, rest: match[4] ?? "", sender, profile: admitted.profile, from, to };
      if (broadcast) return this.broadcasts.push(ctx, inbound, this.routeOf(inbound, ctx.method));
      if (mergedList) return this.merged.answer(ctx, { ...inbound, hub: to });
      return this.forward(ctx, inbound);
    };
  }

  close(): void {
    this.proxy.close();
    this.agents.destroy();
  }

  /** The registered (or known) partner holding `to`, when the sender may reach it; else 4001. */
  private async receiverOf(inbound: Inbound): Promise<PartnerRecord> {
    const { to, sender, module } = inbound;
    // the registrations of the store's current generation: one shared generation read, and a partner
    // (un)registered or rotated on any instance is seen from the moment that write returned
    const records = await this.deps.registry.listCurrent();
    const holder = records.find((r) => r.id !== sender.id && r.roles.some((role) => role.role !== "HUB" && sameParty(role, to)));
    const unknown = `Unknown receiver ${to.country_code}/${to.party_id}`;
    if (!holder || !mayForward(inbound.profile, holder.id)) throw hubError(Status.HUB_UNKNOWN_RECEIVER, unknown);
    const { modules } = this.deps.registry.profileOf(holder);
    if (modules && !modules.includes(module)) throw hubError(Status.HUB_UNKNOWN_RECEIVER, `${unknown} for module ${module}`);
    return holder;
  }

  private async forward(ctx: Context, inbound: Inbound): Promise<void> {
    const target = await this.receiverOf(inbound);
    const name = `${inbound.to.country_code}/${inbound.to.party_id}`;
    if (target.status !== "registered" || !target.tokenToPartner || !target.version)
      throw hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name} is not connected`);
    if ((await this.statuses.get(target.id, () => this.deps.connections.statusOf(target))) === "OFFLINE") {
      // only CONNECTED is remembered: a receiver that is back is reached at once
      this.statuses.forget(target.id);
      throw hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name} is offline`);
    }
    if (target.version === "2.1.1") throw hubError(Status.HUB_ERROR, `Receiver ${name} speaks 2.1.1, which has no routing headers`);
    const endpoint = target.endpoints.find((e) => e.identifier === inbound.module && e.role === inbound.role);
    if (!endpoint) throw hubError(Status.HUB_UNKNOWN_RECEIVER, `Receiver ${name} has no ${inbound.module} ${inbound.role} interface`);

    const url = new URL(endpoint.url);
    if (inbound.rest) url.pathname = `${url.pathname.replace(/\/+$/, "")}${inbound.rest}`;
    url.search = ctx.querystring ? `?${ctx.querystring}` : "";
    const call = callTargetOf(this.deps.registry.profileOf(target), url.toString(), { from: inbound.from, to: inbound.to, correlationId: ctx.state.correlationId });
    const { policy } = call;
    const problem = outboundProblem(url.toString(), policy);
    if (problem) throw hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name}: ${safeUrl(url.toString())} is outside its outbound URL policy (${problem})`);

    const exchange: Exchange = {
      // a forwarded body streams once: the partner's first token encoding, no second try on a 401
      headers: lower(callHeaders(call, encodingsOf(call)[0])),
      senderPrefix: inbound.profile.headerPrefix,
      linkBase: `${this.deps.config.server.public_url}${ctx.path}`,
      timeoutMs: this.deps.config.server.hub?.forward_timeout_ms ?? this.deps.config.server.request_timeout_ms,
      timedOut: false,
      target,
      cutOff: false,
    };
    const publicOnly = needsPublicAddress(url.toString(), policy);
    // a response_url is replaced by one of ours (core/hub/result-relay.ts), so that request is read even between equal versions
    const spot = this.responseUrlOf(inbound.module, inbound.role, ctx.method, inbound.rest);
    if (target.version === inbound.version && !spot) await this.stream(ctx, url, exchange, publicOnly, name);
    else await this.parsed(ctx, inbound, url, exchange, publicOnly, name, spot);
  }

  /**
   * Same version on both sides: request and answer stream through http-proxy.
   * The body is held to the byte limit of every body we take
   * (core/http/body-limits.ts): a declared length over it is refused before
   * anything is sent; a chunked body is counted on its way, and once it
   * passes the limit the request to the receiver is broken off (it never
   * gets a complete body) and the sender is answered 413.
   */
  private async stream(ctx: Context, url: URL, exchange: Exchange, publicOnly: boolean, name: string): Promise<void> {
    const limits = bodyLimitsOf(this.deps.config);
    if (Number(ctx.get("Content-Length")) > limits.max_body_bytes) {
      lingerAfterRefusal(ctx.req, limits);
      throw bodyTooLarge(limits);
    }
    // a compressed body passes unread (its bytes are counted); one sent as it is is scanned as every body we read
    const body = byteLimited(limits, (ctx.get("Content-Encoding") || "identity").trim().toLowerCase() === "identity");
    // a byte written sends the headers: the body flows once the proxyReq handler above has made them ours
    exchange.startBody = () => ctx.req.pipe(body);
    // Node has answered the sender's Expect itself; with it on the request http-proxy would skip that handler
    delete ctx.req.headers.expect;
    this.exchanges.set(ctx.req, exchange);
    ctx.respond = false;
    try {
      await new Promise<void>((resolve, reject) => {
        body.once("error", (error) => {
          exchange.cutOff = true;
          ctx.req.unpipe(body);
          lingerAfterRefusal(ctx.req, limits);
          exchange.outgoing?.destroy();
          reject(error);
        });
        ctx.res.once("finish", resolve);
        ctx.res.once("close", resolve);
        this.proxy.web(ctx.req, ctx.res, { target: url.toString(), agent: this.agents.for(url, publicOnly), buffer: body }, (error) => {
          // the receiver's side of a body cut off: the sender is being answered 413
          if (exchange.cutOff) return;
          if (ctx.res.headersSent) {
            ctx.res.destroy();
            resolve();
          } else reject(error);
        });
      });
    } catch (error) {
      ctx.respond = true;
      throw await this.failure(error, exchange, name);
    }
  }

  /**
   * Different versions, or a request carrying a response_url: the body and
   * the answer's data are parsed, checked and translated (2.2.1 ↔ 2.3.0)
   * when the versions differ, and the response_url is replaced by a relay.
   */
  private async parsed(ctx: Context, inbound: Inbound, url: URL, exchange: Exchange, publicOnly: boolean, name: string, spot?: ResponseUrlSpot): Promise<void> {
    const targetVersion = exchange.target.version!;
    const translating = targetVersion !== inbound.version;
    const found = this.routeOf(inbound, ctx.method);
    const params = found?.params ?? {};
    const sent = await readSenderBody(this.deps, ctx, inbound, found);
    const parsed = sent?.inVersion(targetVersion, exchange.target.id);
    let body: string | undefined;
    const relayId = spot ? await this.relayed(inbound, exchange.target, spot, url, parsed) : undefined;
    if (parsed !== undefined) body = JSON.stringify(parsed);
    const headers: Record<string, string> = { ...exchange.headers, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let answer: Awaited<ReturnType<typeof request>>;
    let text: string;
    try {
      answer = await request(url, {
        method: ctx.method as "GET",
        headers,
        body,
        signal: AbortSignal.timeout(exchange.timeoutMs),
        dispatcher: this.dispatchers.for(publicOnly),
      });
      text = await answer.body.text();
    } catch (error) {
      if ((error as Error).name === "TimeoutError") exchange.timedOut = true;
      throw await this.failure(error, exchange, name);
    }
    void this.deps.connections.reached(exchange.target.id, true).catch(() => undefined);
    const outgoing = answerHeaders(flatten(answer.headers), exchange.senderPrefix, exchange.linkBase);
    delete outgoing["content-length"];
    delete outgoing["transfer-encoding"];
    for (const [header, value] of Object.entries(outgoing)) if (value !== undefined) ctx.set(header, value as string);
    ctx.status = answer.statusCode;
    let env: { status_code?: unknown; status_message?: unknown; timestamp?: unknown; data?: unknown } | undefined;
    try {
      env = text === "" ? undefined : JSON.parse(text);
    } catch {
      env = undefined;
    }
    if (!env || typeof env !== "object" || typeof env.status_code !== "number") {
      ctx.body = text;
      return;
    }
    if (relayId && env.status_code === Status.SUCCESS) {
      const announced = (env.data as { timeout?: unknown } | null | undefined)?.timeout;
      await this.relay.extend(relayId, typeof announced === "number" ? announced : undefined);
    }
    const type = found?.route.response;
    let data = env.data;
    if (type && translating && data !== null && data !== undefined) {
      const owner = exchange.target.roles.find((r) => sameParty(r, inbound.to));
      const up = (item: unknown) => type.up(item, targetVersion, this.deps.lossy.context(exchange.target.id, type.name, targetVersion, params, owner));
      const down = (item: unknown) => type.down(item, inbound.version, this.deps.lossy.context(inbound.sender.id, type.name, inbound.version, params, owner));
      data = Array.isArray(data) ? data.map((item) => down(up(item))) : down(up(data));
    }
    ctx.body = {
      status_code: env.status_code,
      ...(typeof env.status_message === "string" ? { status_message: env.status_message } : {}),
      timestamp: typeof env.timestamp === "string" ? env.timestamp : ocpiTimestamp(new Date()),
      ...(data !== undefined ? { data } : {}),
    };
  }

  /** Opens the relay whose URL the receiver gets instead of the sender's response_url (core/hub/result-relay.ts). */
  private async relayed(inbound: Inbound, target: PartnerRecord, spot: ResponseUrlSpot, url: URL, parsed: unknown): Promise<string> {
    let holder: Record<string, unknown> | undefined;
    if (spot.where === "body") {
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid("Request body with a response_url is required");
      holder = parsed as Record<string, unknown>;
    }
    const responseUrl = holder ? holder.response_url : (url.searchParams.get("response_url") ?? undefined);
    const relay = await this.relay.open({
      sender: inbound.sender,
      receiverId: target.id,
      responseUrl,
      module: inbound.module,
      spot,
      senderVersion: inbound.version,
      from: inbound.from,
      to: inbound.to,
    });
    if (holder) holder.response_url = relay.url;
    else url.searchParams.set("response_url", relay.url);
    return relay.id;
  }

  /** The plugin route a forwarded path matches (for its body and answer types), with its parameters. */
  private routeOf(inbound: Inbound, method: string): MatchedRoute | undefined {
    return matchRoute(this.deps.routesOf(inbound.module, inbound.role), method, inbound.version, inbound.rest);
  }

  /** A forwarded request that got no answer: 4002 on a timeout, 4003 otherwise; the receiver's health records it. */
  private async failure(error: unknown, exchange: Exchange, name: string): Promise<OcpiError> {
    if (error instanceof OcpiError) return error;
    if (error instanceof OutboundAddressError || (error as { code?: string })?.code === "EOUTBOUNDPOLICY" || (error as { cause?: unknown })?.cause instanceof OutboundAddressError)
      return hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name}: its address is outside the outbound URL policy`);
    await this.deps.connections.reached(exchange.target.id, false).catch(() => undefined);
    if (exchange.timedOut) return hubError(Status.HUB_TIMEOUT, `Receiver ${name} did not answer within ${exchange.timeoutMs} ms`);
    const e = error as { code?: string; cause?: { code?: string } };
    return hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name} is not reachable (${e?.code ?? e?.cause?.code ?? "connection failed"})`);
  }
}
