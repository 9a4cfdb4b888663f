import { randomBytes } from "node:crypto";
import type { Context } from "koa";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { ResponseUrlSpot, RouteSpec } from "../contract/module-plugin";
import type { Store } from "../contract/store";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerIdentity } from "../contract/request-context";
import type { LossyTranslationLog } from "../model/lossy";
import type { TolerantReader } from "../model/tolerant-reader";
import type { InterfaceRole, PartyRef, VersionNumber } from "../protocol/types";
import { Status } from "../protocol/status";
import { OcpiError, invalid, invalidFields, methodNotAllowed, notFound } from "../contract/errors";
import { envelope } from "../http/envelope";
import { routingHeaders } from "../http/routing-headers";
import { admit, routingBeforeAdmission } from "../edge/admit";
import { checkCallbackUrl } from "../partners/callback-policy";
import { callTargetOf } from "../client/call-target";
import type { PartnerProfile } from "../contract/partner-profile";
import { OcpiClient, PartnerCallError } from "../client/ocpi-client";
import { sentRequestDeadline } from "../async/outgoing";
import { hubError } from "./hub-http";
import { readJsonBody } from "../http/json-body";
import { bodyLimitsOf } from "../http/body-limits";
import { matchRoute } from "./route-match";
import type { HubConnections } from "./hub-connections";

/** Path of the hub's response_urls: `<public_url>/ocpi/hub/results/<id>`, outside every module, so never forwarded as one. */
export const RELAY_PATH = "/ocpi/hub/results/";
const RELAYS = "hub:relays";
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_BATCH = 500;

/** One response_url the hub handed a receiver in place of the sender's. */
interface RelayEntry {
  id: string;
  /** the partner that sent the request: only it gets the result, at its own URL */
  senderId: string;
  /** the partner the request went to: the only one that may post the result */
  receiverId: string;
  /** the sender's response_url */
  url: string;
  module: string;
  resultRest: string;
  senderVersion: VersionNumber;
  /** the sender's party and the receiver's (routing headers of the result) */
  from: PartyRef;
  to: PartyRef;
  expiresAt: number;
  /** the sender has answered the result: a repeat is not sent again */
  delivered?: boolean;
  /** a delivery under way until then */
  leaseUntil?: number;
}

export interface RelayDeps {
  config: GatewayConfig;
  store: Store;
  registry: PartnerRegistry;
  connections: HubConnections;
  lossy: LossyTranslationLog;
  reader: TolerantReader;
  log: Logger;
  routesOf(module: string, role: InterfaceRole): readonly RouteSpec[];
}

/** What the forwarder knows when it opens a relay for a request. */
export interface RelayRequest {
  sender: PartnerIdentity;
  receiverId: string;
  responseUrl: unknown;
  module: string;
  spot: ResponseUrlSpot;
  senderVersion: VersionNumber;
  from: PartyRef;
  to: PartyRef;
}

/**
 * The asynchronous results of requests forwarded through the hub (commands,
 * charging profiles; README "Hubs and forwarding"). The receiver can only
 * reach the hub, and a partner must not steer the hub to a URL of its
 * choosing, so the request's response_url is replaced by one of ours:
 * unguessable (256 random bits), bound to the request's sender, receiver
 * and parties, expiring with the request. The result posted there by that
 * receiver (any other partner gets 404, like an unknown URL) is read and
 * translated to the sender's version, then POSTed to the sender's own
 * response_url with the sender's token, under the sender's outbound policy
 * (checked when the request came, and again on the call). It is passed on
 * once: a repeat after the sender answered is acknowledged, not sent again.
 */
export class ResultRelay {
  private readonly client: OcpiClient;
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: RelayDeps) {
    const { server } = deps.config;
    this.client = new OcpiClient(server.hub?.forward_timeout_ms ?? server.request_timeout_ms);
  }

  start(): void {
    this.timer = setInterval(() => void this.sweep().catch((error) => this.deps.log.warn({ err: error }, "hub: sweeping expired response URLs failed")), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Opens a relay for a request about to be forwarded; its URL replaces the sender's response_url. 2001 for a URL outside the sender's policy. */
  async open(request: RelayRequest): Promise<{ id: string; url: string }> {
    if (typeof request.responseUrl !== "string") throw invalid("response_url: is required (a URL)");
    checkCallbackUrl("response_url", request.responseUrl, request.sender.config, request.sender.record);
    const id = randomBytes(32).toString("base64url");
    // Until the receiver answers, as long as a request we send ourselves may wait without an announced timeout.
    const expiresAt = sentRequestDeadline(this.deps.config, undefined);
    const entry: RelayEntry = {
      id,
      senderId: request.sender.id,
      receiverId: request.receiverId,
      url: request.responseUrl,
      module: request.module,
      resultRest: request.spot.resultRest,
      senderVersion: request.senderVersion,
      from: request.from,
      to: request.to,
      expiresAt,
    };
    await this.deps.store.put(RELAYS, id, entry, expiresAt);
    return { id, url: `${this.deps.config.server.public_url}${RELAY_PATH}${id}` };
  }

  /** The receiver answered: the relay lives as long as the timeout it announced, plus our grace. */
  async extend(id: string, announcedSeconds: number | undefined): Promise<void> {
    const expiresAt = sentRequestDeadline(this.deps.config, announcedSeconds);
    await this.deps.store.update<RelayEntry>(RELAYS, id, (current) => (current ? { value: { ...current, expiresAt }, sortKey: expiresAt } : undefined));
  }

  /** A result POSTed to one of our response_urls. */
  async receive(ctx: Context): Promise<void> {
    // the edge's admission (no version or module in this path: the relay's entry names them); a from-party must be the poster's
    const request = { authorization: ctx.get("Authorization"), headers: ctx.headers };
    const { partner: poster, profile } = await admit(this.deps, { ...request, routing: await routingBeforeAdmission(this.deps, request) });
    if (ctx.method !== "POST") throw methodNotAllowed(`${ctx.method} is not allowed on a response_url`);
    const id = ctx.path.slice(RELAY_PATH.length);
    const now = Date.now();
    const entry = await this.deps.store.get<RelayEntry>(RELAYS, id);
    // another partner's URL is answered like an unknown one: nothing about it is revealed
    if (!entry || entry.expiresAt <= now || entry.receiverId !== poster.id || !poster.record.version) throw notFound("Response URL");
    const body = await this.resultFor(entry, profile, (await readJsonBody(ctx.req, ctx.res, bodyLimitsOf(this.deps.config))).body);
    for (const [header, value] of Object.entries(routingHeaders(profile.headerPrefix, entry.from, entry.to))) ctx.set(header, value);

    const claimed = await this.claim(id, now);
    if (!claimed) {
      const current = await this.deps.store.get<RelayEntry>(RELAYS, id);
      if (current?.delivered) {
        this.deps.log.info({ partner: poster.id, module: entry.module }, "hub: a result repeated by the receiver was acknowledged, not passed on again");
        ctx.body = envelope(null, Status.SUCCESS, "Result already passed on");
        return;
      }
      if (!current || current.expiresAt <= now) throw notFound("Response URL");
      throw hubError(Status.HUB_ERROR, "The result is being passed on; retry later");
    }
    ctx.body = await this.deliver(id, entry, body, ctx.state.correlationId as string | undefined);
  }

  /** Deletes the relays that expired (their index key is the expiry). */
  async sweep(now = Date.now()): Promise<void> {
    // in batches, until none is left: a busy hub opens more than one batch a minute
    for (;;) {
      const expired = await this.deps.store.range<RelayEntry>(RELAYS, { to: now, offset: 0, limit: SWEEP_BATCH });
      await Promise.all(expired.items.map((entry) => this.deps.store.delete(RELAYS, entry.id)));
      if (expired.items.length < SWEEP_BATCH) return;
    }
  }

  /** The result read under the receiver's strictness and translated to the sender's version. */
  private async resultFor(entry: RelayEntry, poster: PartnerProfile, parsed: unknown): Promise<unknown> {
    if (parsed === undefined) throw invalid("Request body with the result is required");
    const version = poster.version!;
    const type = matchRoute(this.deps.routesOf(entry.module, "SENDER"), "POST", version, entry.resultRest)?.route.body?.type;
    if (!type) return parsed;
    const read = await this.deps.reader.read({
      partnerId: poster.id,
      strictness: poster.strictness,
      type,
      schema: type.schema(version, "full"),
      raw: parsed,
      sender: entry.to,
    });
    if (!read.ok) throw invalidFields(read.issues);
    if (version === entry.senderVersion) return read.value;
    const canonical = type.up(read.value, version, this.deps.lossy.context(poster.id, type.name, version, {}, entry.to));
    return type.down(canonical, entry.senderVersion, this.deps.lossy.context(entry.senderId, type.name, entry.senderVersion, {}, entry.to));
  }

  /** Takes the entry for one delivery: not delivered, not expired, no other delivery under way. */
  private async claim(id: string, now: number): Promise<boolean> {
    let won = false;
    const leaseUntil = now + this.timeoutMs() + 1_000;
    await this.deps.store.update<RelayEntry>(RELAYS, id, (current) => {
      won = current !== undefined && !current.delivered && current.expiresAt > now && (current.leaseUntil ?? 0) <= now;
      return won ? { value: { ...current!, leaseUntil }, sortKey: current!.expiresAt } : undefined;
    });
    return won;
  }

  /**
   * POSTs the result to the sender's response_url with the sender's own
   * token. Its answer, 2xxx included, is final and passed back; no answer,
   * or a server error, leaves the relay open for the receiver's retry
   * (4002/4003, which its outbox retries).
   */
  private async deliver(id: string, entry: RelayEntry, body: unknown, correlationId: string | undefined) {
    const { registry, connections } = this.deps;
    const sender = await registry.get(entry.senderId);
    const name = `${entry.from.country_code}/${entry.from.party_id}`;
    if (!sender || sender.status !== "registered" || !sender.tokenToPartner) {
      await this.release(id);
      throw hubError(Status.HUB_CONNECTION_PROBLEM, `Sender ${name} is not connected`);
    }
    try {
      const result = await this.client.call(
        "POST",
        callTargetOf(registry.profileOf(sender), entry.url, { from: entry.to, to: entry.from, correlationId }),
        body,
      );
      await this.finish(id);
      void connections.reached(sender.id, true).catch(() => undefined);
      return envelope(null, result.envelope.status_code, result.envelope.status_message);
    } catch (error) {
      if (!(error instanceof PartnerCallError)) {
        await this.release(id);
        throw error;
      }
      const final = error.kind === "ocpi" && error.statusCode !== undefined && error.statusCode >= 2000 && error.statusCode < 3000;
      if (final) {
        await this.finish(id);
        throw new OcpiError(error.statusCode!, `Sender ${name} refused the result: ${error.answer ?? ""}`.trim(), error.httpStatus ?? 200);
      }
      await this.release(id);
      if (error.kind === "timeout" || error.kind === "unreachable") void connections.reached(sender.id, false).catch(() => undefined);
      if (error.kind === "timeout") throw hubError(Status.HUB_TIMEOUT, `Sender ${name} did not answer within ${this.timeoutMs()} ms`);
      throw hubError(Status.HUB_CONNECTION_PROBLEM, `Sender ${name} could not take the result (${error.kind}${error.statusCode ? ` ${error.statusCode}` : ""})`);
    }
  }

  private async finish(id: string): Promise<void> {
    await this.deps.store.update<RelayEntry>(RELAYS, id, (current) =>
      current ? { value: { ...current, delivered: true, leaseUntil: undefined }, sortKey: current.expiresAt } : undefined,
    );
  }

  private async release(id: string): Promise<void> {
    await this.deps.store.update<RelayEntry>(RELAYS, id, (current) => (current ? { value: { ...current, leaseUntil: undefined }, sortKey: current.expiresAt } : undefined));
  }

  private timeoutMs(): number {
    const { server } = this.deps.config;
    return server.hub?.forward_timeout_ms ?? server.request_timeout_ms;
  }
}
