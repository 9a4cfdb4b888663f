import type { PartnerRecord } from "../contract/partner-record";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { ConnectionStatus } from "./client-info";
import type { Inbound } from "./inbound";
import { partyKey, sameParty } from "../protocol/types";
import { Status } from "../protocol/status";
import type { OcpiError } from "../contract/errors";
import { needsPublicAddress, outboundProblem } from "../partners/outbound-policy";
import { callHeaders, callTargetOf, encodingsOf } from "../client/call-target";
import { safeUrl } from "../client/ocpi-client";
import { hubError } from "./hub-http";
import { mayForward } from "./hub-config";
import { isPlainQuery, lower } from "./forward-headers";
import { Recent } from "./recent";

/** Where requests of one sender, from one of its parties to one party of a module interface, go: the same for every such request of a registration generation. */
export interface ReceiverRoute {
  target: PartnerRecord;
  /** the receiver's party as messages name it (CC/PID) */
  name: string;
  /** the receiver's URL of the module interface, checked under its outbound URL policy */
  endpoint: URL;
  /** the endpoint's host as node:http connects to it (an IPv6 literal without its brackets) and its port */
  hostname: string;
  /** the endpoint's host as a Host header names it */
  host: string;
  port: number | undefined;
  /** connections only to public addresses: the endpoint's origin is not one the operator named */
  publicOnly: boolean;
  /** the headers of every request to the receiver but its ids, name and value in turn: its token (in its first encoding, a forwarded body streams once), routing headers in its prefix */
  headers: readonly string[];
}

/** What a route resolves to: refused before the receiver's status is looked at, or after it (the order of the checks), or the route. */
interface Resolved {
  target: PartnerRecord;
  name: string;
  beforeStatus?: OcpiError;
  afterStatus?: OcpiError;
  route?: ReceiverRoute;
}

/** Routes kept per listing; past this (senders naming many parties) they start over. */
const MAX_ROUTES = 1_000;

/**
 * The receivers of requests through the hub. Everything about a route that
 * does not change within a registration generation — the partner holding
 * the to-party, whether the sender may reach it, its registration, version
 * and endpoint, the endpoint's origin under its outbound URL policy, the
 * token and routing headers — is worked out once per listing of the
 * registrations (a new generation, a new listing: PartnerRegistry.listCurrent)
 * and per sender, from-party, to-party and module interface; each request
 * still reads the current generation and the receiver's connection status.
 * A request's URL differs from the endpoint only in path and query, so its
 * origin, all the policy looks at, is the endpoint's.
 */
export class ReceiverRoutes {
  /** receivers' status, read at most once a second (core/hub/recent.ts) */
  private readonly statuses = new Recent<ConnectionStatus>(1_000);
  private readonly routes = new WeakMap<readonly PartnerRecord[], Map<string, Resolved>>();

  constructor(
    private readonly registry: PartnerRegistry,
    private readonly statusOf: (record: PartnerRecord) => Promise<ConnectionStatus>,
  ) {}

  /**
   * The route of a request through the hub among the registrations of the store's current generation
   * (`records`: PartnerRegistry.listCurrent, where a partner (un)registered or rotated on any instance is seen
   * from the moment that write returned), or the hub error it is refused with (4001, 4003: README "Hubs and forwarding").
   */
  async of(inbound: Inbound, records: readonly PartnerRecord[]): Promise<ReceiverRoute> {
    const resolved = this.resolved(inbound, records);
    if (resolved.beforeStatus) throw resolved.beforeStatus;
    const { target, name } = resolved;
    const status = this.statuses.known(target.id) ?? (await this.statuses.get(target.id, () => this.statusOf(target)));
    if (status === "OFFLINE") {
      // only CONNECTED is remembered: a receiver that is back is reached at once
      this.statuses.forget(target.id);
      throw hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name} is offline`);
    }
    if (!resolved.route) throw resolved.afterStatus;
    return resolved.route;
  }

  /**
   * The same route without waiting, when `of` would answer it at once: the receiver's status known (read
   * within the last second) and not OFFLINE; undefined otherwise, a refusal included (then `of`).
   */
  now(inbound: Inbound, records: readonly PartnerRecord[]): ReceiverRoute | undefined {
    const resolved = this.resolved(inbound, records);
    const status = resolved.route && this.statuses.known(resolved.target.id);
    return status !== undefined && status !== "OFFLINE" ? resolved.route : undefined;
  }

  /** What the route of a sender, from-party, to-party and module interface resolves to in a listing, worked out once (4001 thrown). */
  private resolved(inbound: Inbound, records: readonly PartnerRecord[]): Resolved {
    let routes = this.routes.get(records);
    if (!routes) this.routes.set(records, (routes = new Map()));
    const key = `${inbound.sender.id}\n${partyKey(inbound.from)}\n${partyKey(inbound.to)}\n${inbound.module}\n${inbound.role}`;
    let resolved = routes.get(key);
    if (!resolved) {
      resolved = this.resolve(records, inbound);
      if (routes.size >= MAX_ROUTES) routes.clear();
      routes.set(key, resolved);
    }
    return resolved;
  }

  /** The registered (or known) partner holding the to-party, when the sender may reach it (else 4001), and what the route to it is. */
  private resolve(records: readonly PartnerRecord[], inbound: Inbound): Resolved {
    const { to, sender, module, role } = inbound;
    const holder = records.find((r) => r.id !== sender.id && r.roles.some((party) => party.role !== "HUB" && sameParty(party, to)));
    const unknown = `Unknown receiver ${to.country_code}/${to.party_id}`;
    if (!holder || !mayForward(inbound.profile, holder.id)) throw hubError(Status.HUB_UNKNOWN_RECEIVER, unknown);
    const profile = this.registry.profileOf(holder);
    if (profile.modules && !profile.modules.includes(module)) throw hubError(Status.HUB_UNKNOWN_RECEIVER, `${unknown} for module ${module}`);
    const name = `${to.country_code}/${to.party_id}`;
    if (holder.status !== "registered" || !holder.tokenToPartner || !holder.version)
      return { target: holder, name, beforeStatus: hubError(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name} is not connected`) };
    const refused = (code: number, message: string): Resolved => ({ target: holder, name, afterStatus: hubError(code, message) });
    if (holder.version === "2.1.1") return refused(Status.HUB_ERROR, `Receiver ${name} speaks 2.1.1, which has no routing headers`);
    const found = holder.endpoints.find((e) => e.identifier === module && e.role === role);
    if (!found) return refused(Status.HUB_UNKNOWN_RECEIVER, `Receiver ${name} has no ${module} ${role} interface`);
    const call = callTargetOf(profile, found.url, { from: inbound.from, to });
    const endpoint = new URL(found.url);
    const problem = outboundProblem(endpoint, call.policy);
    if (problem) return refused(Status.HUB_CONNECTION_PROBLEM, `Receiver ${name}: ${safeUrl(found.url)} is outside its outbound URL policy (${problem})`);
    const headers = Object.entries(lower(callHeaders(call, encodingsOf(call)[0]))).flatMap(([header, value]) => (header === "x-request-id" || header === "x-correlation-id" ? [] : [header, value]));
    const hostname = endpoint.hostname.startsWith("[") ? endpoint.hostname.slice(1, -1) : endpoint.hostname;
    const port = endpoint.port ? Number(endpoint.port) : undefined;
    return { target: holder, name, route: { target: holder, name, endpoint, hostname, host: endpoint.host, port, publicOnly: needsPublicAddress(endpoint, call.policy), headers: Object.freeze(headers) } };
  }
}

/**
 * The path and query of a request at the receiver: the endpoint's path with
 * the path below the module interface (`rest`) and the query the sender sent.
 * A list's is the endpoint's path and a query of plain characters as sent
 * (what URL would make of them); any other is built with URL, as it encodes them.
 */
export const pathAt = (route: ReceiverRoute, rest: string, query: string): string => {
  const { endpoint } = route;
  if (!rest && (!query || isPlainQuery(`?${query}`))) return query ? `${endpoint.pathname}?${query}` : endpoint.pathname;
  const url = new URL(endpoint);
  if (rest) url.pathname = `${url.pathname.replace(/\/+$/, "")}${rest}`;
  url.search = query ? `?${query}` : "";
  return `${url.pathname}${url.search}`;
};
