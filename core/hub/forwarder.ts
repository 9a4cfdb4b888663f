import { randomUUID } from "node:crypto";
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { request } from "undici";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { ModulePlugin, ResponseUrlSpot, RouteSpec } from "../contract/module-plugin";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../contract/partner-record";
import type { LossyTranslationLog } from "../model/lossy";
import type { TolerantReader } from "../model/tolerant-reader";
import type { Outbox } from "../outbox/outbox";
import type { InterfaceRole, PartyRef } from "../protocol/types";
import type { Store } from "../contract/store";
import { partyKey, sameParty } from "../protocol/types";
import { Status } from "../protocol/status";
import { OcpiError, invalid } from "../contract/errors";
import { ocpiTimestamp } from "../http/envelope";
import { bodyLimitsOf, bodyTooLarge, byteLimited } from "../http/body-limits";
import { refusalAnswered } from "../http/refusal-pacing";
import { GuardedDispatchers, OutboundAddressError } from "../client/guarded-dispatcher";
import { ForwardAgents } from "./forward-agents";
import { hubError } from "./hub-http";
import { matchRoute, type MatchedRoute } from "./route-match";
import { MergedLists } from "./merged-list";
import { RELAY_PATH, ResultRelay } from "./result-relay";
import type { HubConnections } from "./hub-connections";
import { HubBroadcast } from "./broadcast";
import type { Inbound } from "./inbound";
import { readSenderBody } from "./sender-body";
import { REQUEST_HEADERS, answerHeaders, flatten } from "./forward-headers";
import { ReceiverRoutes, pathAt, type ReceiverRoute } from "./receiver-routes";
import { StreamFailure, streamTo, type StreamPlan } from "./stream-forward";
import { HubAddressing, type Decided } from "./hub-addressing";

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

/** A GET streamed to a receiver as the fast entrance (core/host/forwarded-get.ts) sends it. */
export interface PreparedStream {
  plan: StreamPlan;
  route: ReceiverRoute;
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
 * Same version on both sides: streamed on node:http (core/hub/stream-forward.ts), never buffered.
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
  private readonly agents: ForwardAgents;
  private readonly dispatchers = new GuardedDispatchers();
  private readonly hubParties: PartyRef[];
  readonly relay: ResultRelay;
  private readonly routes: ReceiverRoutes;
  private readonly merged: MergedLists;
  private readonly broadcasts: HubBroadcast;
  private readonly addressing: HubAddressing;

  constructor(private readonly deps: ForwardingDeps) {
    const { config } = deps;
    this.agents = new ForwardAgents(this.timeoutMs());
    this.relay = new ResultRelay(deps);
    this.merged = new MergedLists(deps);
    this.routes = new ReceiverRoutes(deps.registry, (record) => deps.connections.statusOf(record));
    this.hubParties = config.parties.filter((p) => p.role === "HUB" || (config.server.hub_party_id !== undefined && partyKey(p) === config.server.hub_party_id.toUpperCase()));
    this.broadcasts = new HubBroadcast(deps, this.hubParties);
    this.addressing = new HubAddressing(
      deps,
      this.hubParties,
      (module, method, rest) => this.responseUrlOf(module, "RECEIVER", method, rest) !== undefined,
      (module) => {
        const plugin = deps.pluginOf(module);
        return plugin !== undefined && !plugin.configurationModule;
      },
    );
  }

  /** where a request of the module carries its response_url, as its plugin declares (commands, charging profiles) */
  private responseUrlOf(module: string, role: InterfaceRole, method: string, rest: string): ResponseUrlSpot | undefined {
    return this.deps.pluginOf(module)?.responseUrlOf?.(role, method, rest);
  }

  middleware(): Middleware {
    return async (ctx, next) => {
      if (ctx.path.startsWith(RELAY_PATH)) return this.relay.receive(ctx);
      const decided = await this.addressing.decide(ctx.method, ctx.path, ctx.headers);
      if (!decided) return next();
      const { kind, inbound } = decided;
      if (kind === "broadcast") return this.broadcasts.push(ctx, inbound, this.routeOf(inbound, ctx.method));
      if (kind === "merged") return this.merged.answer(ctx, { ...inbound, hub: inbound.to });
      return this.forward(ctx, inbound, decided.records);
    };
  }

  /**
   * A GET without a body that goes to one receiver of the same version,
   * admitted and routed exactly as the middleware does it, ready to stream;
   * undefined when it is anything else or is refused (Koa then answers it,
   * refusal included). Nothing has been sent to the receiver yet.
   */
  async prepareGet(req: IncomingMessage, path: string, query: string, ids: { requestId: string; correlationId: string }): Promise<PreparedStream | undefined> {
    let decided: Decided | undefined;
    let route: ReceiverRoute;
    try {
      decided = await this.addressing.decide("GET", path, req.headers);
      if (decided?.kind !== "forward") return undefined;
      route = await this.routes.of(decided.inbound, decided.records);
    } catch {
      return undefined;
    }
    return this.prepared(route, decided.inbound, req, path, query, ids);
  }

  /**
   * The same, without waiting: when the admission (admitNow), the
   * registrations and the receiver's route and status are known at once
   * (ReceiverRoutes.now); undefined otherwise, refusals included (then `prepareGet`).
   */
  prepareGetNow(req: IncomingMessage, path: string, query: string, ids: { requestId: string; correlationId: string }): PreparedStream | undefined {
    // only a store that tells at once whether anything was written (ChangeMarks: SQLite) lets a generation be known at once
    if (!this.deps.store.changeMarks) return undefined;
    try {
      const decided = this.addressing.forwardNow(path, req.headers);
      const route = decided && this.routes.now(decided.inbound, decided.records);
      return route && this.prepared(route, decided.inbound, req, path, query, ids);
    } catch {
      return undefined;
    }
  }

  private prepared(route: ReceiverRoute, inbound: Inbound, req: IncomingMessage, path: string, query: string, ids: { requestId: string; correlationId: string }): PreparedStream | undefined {
    if (route.target.version !== inbound.version || this.responseUrlOf(inbound.module, inbound.role, "GET", inbound.rest)) return undefined;
    const plan = this.planOf(route, inbound, path, query, ids.correlationId, req.headers);
    plan.own = ["X-Request-ID", ids.requestId, "X-Correlation-ID", ids.correlationId];
    return { plan, route };
  }

  /** Streams a prepared GET (prepareGet); rejects, when the receiver gave no answer, with what `failureOf` makes the sender's answer. */
  sendGet(req: IncomingMessage, res: ServerResponse, prepared: PreparedStream): Promise<unknown> {
    return streamTo(req, res, prepared.plan, { onAnswer: () => this.reachedWell(prepared.route) });
  }

  /** The hub error (4002, 4003) the sender of a prepared GET is answered when `sendGet` rejected with `error`. */
  failureOf(error: unknown, prepared: PreparedStream): Promise<OcpiError> {
    return this.failure(error, prepared.route, prepared.plan.timeoutMs);
  }

  close(): void {
    this.agents.destroy();
  }

  private async forward(ctx: Context, inbound: Inbound, records: readonly PartnerRecord[]): Promise<void> {
    const route = await this.routes.of(inbound, records);
    // a response_url is replaced by one of ours (core/hub/result-relay.ts), so that request is read even between equal versions
    const spot = this.responseUrlOf(inbound.module, inbound.role, ctx.method, inbound.rest);
    const streamed = route.target.version === inbound.version && !spot;
    const plan = this.planOf(route, inbound, ctx.path, ctx.querystring, ctx.state.correlationId, streamed ? ctx.req.headers : undefined);
    if (streamed) await this.stream(ctx, route, plan);
    else await this.parsed(ctx, inbound, route, plan, spot);
  }

  /**
   * The request to the receiver: its URL of the module interface with the
   * path below it and the query the sender sent (pathAt), the route's
   * headers and fresh ids, and (streamed: `sent`, the sender's headers) Host
   * and the sender's content headers.
   */
  private planOf(route: ReceiverRoute, inbound: Inbound, path: string, query: string, correlationId: string, sent?: IncomingHttpHeaders): StreamPlan {
    // name and value in turn (as node:http takes them): no object built per request
    const headers = route.headers.concat("x-request-id", randomUUID(), "x-correlation-id", correlationId);
    if (sent) {
      headers.push("host", route.host);
      for (const name of REQUEST_HEADERS) {
        const value = sent[name];
        if (value !== undefined) headers.push(name, value);
      }
    }
    const protocol = route.endpoint.protocol as StreamPlan["protocol"];
    return {
      protocol,
      hostname: route.hostname,
      port: route.port,
      path: pathAt(route, inbound.rest, query),
      headers,
      agent: this.agents.for(protocol, route.publicOnly),
      timeoutMs: this.timeoutMs(),
      senderPrefix: inbound.profile.headerPrefix,
      linkBase: `${this.deps.config.server.public_url}${path}`,
      own: [],
    };
  }

  /** How long a receiver has to answer a forwarded request (`server.hub.forward_timeout_ms`, else `server.request_timeout_ms`). */
  private timeoutMs(): number {
    return this.deps.config.server.hub?.forward_timeout_ms ?? this.deps.config.server.request_timeout_ms;
  }

  /** A forwarded request was answered: the receiver's health hears of it (no store read while it is known healthy). */
  private reachedWell(route: ReceiverRoute): void {
    void this.deps.connections.reached(route.target.id, true).catch(() => undefined);
  }

  /**
   * Same version on both sides: request and answer stream on node:http
   * (core/hub/stream-forward.ts). The body is held to the byte limit of every
   * body we take (core/http/body-limits.ts): a declared length over it is
   * refused before anything is sent; a chunked body is counted on its way,
   * and once it passes the limit the request to the receiver is broken off
   * (it never gets a complete body) and the sender is answered 413. A request
   * without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3).
   */
  private async stream(ctx: Context, route: ReceiverRoute, plan: StreamPlan): Promise<void> {
    const limits = bodyLimitsOf(this.deps.config);
    if (Number(ctx.get("Content-Length")) > limits.max_body_bytes) {
      await refusalAnswered(ctx.req, limits);
      throw bodyTooLarge(limits);
    }
    const framed = ctx.req.headers["content-length"] !== undefined || ctx.req.headers["transfer-encoding"] !== undefined;
    // a compressed body passes unread (its bytes are counted); one sent as it is is scanned as every body we read
    const body = framed ? byteLimited(limits, (ctx.get("Content-Encoding") || "identity").trim().toLowerCase() === "identity") : undefined;
    let outgoing: ClientRequest | undefined;
    let cutOff = false;
    ctx.respond = false;
    try {
      await new Promise<void>((resolve, reject) => {
        body?.once("error", (error) => {
          cutOff = true;
          ctx.req.unpipe(body);
          outgoing?.destroy();
          void refusalAnswered(ctx.req, limits).then(() => reject(error));
        });
        // the receiver's side of a body cut off fails too: the sender is being answered 413
        streamTo(ctx.req, ctx.res, plan, { body, onRequest: (request) => (outgoing = request), onAnswer: () => this.reachedWell(route) }).then(
          () => resolve(),
          (error: unknown) => (cutOff ? undefined : reject(error)),
        );
        if (body) ctx.req.pipe(body);
      });
    } catch (error) {
      ctx.respond = true;
      throw await this.failure(error, route, plan.timeoutMs);
    }
  }

  /**
   * Different versions, or a request carrying a response_url: the body and
   * the answer's data are parsed, checked and translated (2.2.1 ↔ 2.3.0)
   * when the versions differ, and the response_url is replaced by a relay.
   */
  private async parsed(ctx: Context, inbound: Inbound, route: ReceiverRoute, plan: StreamPlan, spot?: ResponseUrlSpot): Promise<void> {
    const { target } = route;
    const url = new URL(plan.path, route.endpoint);
    const targetVersion = target.version!;
    const translating = targetVersion !== inbound.version;
    const found = this.routeOf(inbound, ctx.method);
    const params = found?.params ?? {};
    const sent = await readSenderBody(this.deps, ctx, inbound, found);
    const parsed = sent?.inVersion(targetVersion, target.id);
    let body: string | undefined;
    const relayId = spot ? await this.relayed(inbound, target, spot, url, parsed) : undefined;
    if (parsed !== undefined) body = JSON.stringify(parsed);
    const headers: Record<string, string> = {};
    for (let i = 0; i + 1 < plan.headers.length; i += 2) headers[plan.headers[i]] = plan.headers[i + 1];
    headers.accept = "application/json";
    if (body !== undefined) headers["content-type"] = "application/json";
    let answer: Awaited<ReturnType<typeof request>>;
    let text: string;
    try {
      answer = await request(url, {
        method: ctx.method as "GET",
        headers,
        body,
        signal: AbortSignal.timeout(plan.timeoutMs),
        dispatcher: this.dispatchers.for(route.publicOnly),
      });
      text = await answer.body.text();
    } catch (error) {
      throw await this.failure(error, route, plan.timeoutMs, (error as Error).name === "TimeoutError");
    }
    this.reachedWell(route);
    const outgoing = answerHeaders(flatten(answer.headers), plan.senderPrefix, plan.linkBase);
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
      const owner = target.roles.find((r) => sameParty(r, inbound.to));
      const up = (item: unknown) => type.up(item, targetVersion, this.deps.lossy.context(target.id, type.name, targetVersion, params, owner));
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
  private async failure(thrown: unknown, route: ReceiverRoute, timeoutMs: number, timedOut = false): Promise<OcpiError> {
    const streamed = thrown instanceof StreamFailure;
    const error = streamed ? thrown.reason : thrown;
    const name = route.name;
    if (error instanceof OcpiError) return error;
    if (error instanceof OutboundAddressError || (error as { code?: string })?.code === "EOUTBOUNDPOLICY" || (error as { cause?: unknown })?.cause instanceof OutboundAddressError)
      return hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name}: its address is outside the outbound URL policy`);
    await this.deps.connections.reached(route.target.id, false).catch(() => undefined);
    if (timedOut || (streamed && thrown.timedOut)) return hubError(Status.HUB_TIMEOUT, `Receiver ${name} did not answer within ${timeoutMs} ms`);
    const e = error as { code?: string; cause?: { code?: string } };
    return hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name} is not reachable (${e?.code ?? e?.cause?.code ?? "connection failed"})`);
  }
}
