import type { IncomingHttpHeaders } from "node:http";
import type { PartnerRecord } from "../contract/partner-record";
import type { PartyRef, VersionNumber } from "../protocol/types";
import { sameParty } from "../protocol/types";
import { admit, admitNow, routingBeforeAdmission, type Admission, type AdmissionDeps, type AdmissionRequest } from "../edge/admit";
import { readRoutingHeaders } from "../http/routing-headers";
import type { Inbound } from "./inbound";

/** Module paths of the versions that have routing headers; 2.1.1 has none, so nothing there is forwarded. */
const MODULE_PATH = /^\/ocpi\/(2\.2\.1|2\.3\.0)\/(sender|receiver)\/([A-Za-z0-9_-]+)(\/[^?]*)?$/;

/** What a request through the hub is, once admitted: a push to broadcast, a list to merge, or a request for one receiver. */
export interface Decided {
  kind: "broadcast" | "merged" | "forward";
  inbound: Inbound;
  /** the registrations of the generation the admission read (PartnerRegistry.listCurrent, asked in the same batch) */
  records: readonly PartnerRecord[];
}

/** The module path a request names, before anything is known of who sends it. */
interface ModulePath {
  version: VersionNumber;
  side: "sender" | "receiver";
  module: string;
  rest: string;
}

/** The routing headers, when well formed; undefined otherwise (routingBeforeAdmission then answers in admission's order). */
const routingHeadersOf = (headers: IncomingHttpHeaders): { from?: PartyRef; to?: PartyRef } | undefined => {
  try {
    return readRoutingHeaders(headers);
  } catch {
    return undefined;
  }
};

/**
 * Whether a request is the hub's (addressed to a party of a partner, or a
 * push or list addressed to our hub party), admitted at the edge
 * (core/edge/admit.ts); undefined: the kernel's (to a party of ours, or no
 * module path of a version with routing headers).
 */
export class HubAddressing {
  constructor(
    private readonly deps: AdmissionDeps,
    /** our parties with role HUB (or the configured hub party) */
    private readonly hubParties: readonly PartyRef[],
    /** whether a request of the module carries a response_url (an asynchronous request has one receiver to post its result to) */
    private readonly hasResponseUrl: (module: string, method: string, rest: string) => boolean,
    /**
     * whether requests of the module are the hub's to forward: a functional module's, never a configuration
     * module's (credentials, hubclientinfo: between the hub and each partner; a credentials GET forwarded to a
     * receiver would hand the sender the receiver's token for the hub), nor one no plugin knows
     */
    private readonly forwardable: (module: string) => boolean,
  ) {}

  /** The module path of a request the hub may forward (forwardable module, no dot segment); undefined: the kernel's. */
  private forwardedPath(path: string): ModulePath | undefined {
    const at = pathOf(path);
    return at && this.forwardable(at.module) ? at : undefined;
  }

  async decide(method: string, path: string, headers: IncomingHttpHeaders): Promise<Decided | undefined> {
    const at = this.forwardedPath(path);
    if (!at) return undefined;
    const request = requestOf(at, headers);
    const routing = routingHeadersOf(headers) ?? (await routingBeforeAdmission(this.deps, request));
    const kind = routing.to && this.kindOf(method, at, routing.to);
    if (!kind) return undefined;
    // a request through the hub always has a from-party; asked with the admission, the registrations are read on the generation read the admission waits for
    const [admitted, records] = await Promise.all([admit(this.deps, requestOf(at, headers, routing)), this.deps.registry.listCurrent()]);
    return { kind, inbound: inboundOf(at, admitted, routing.to!), records };
  }

  /**
   * The same decision for a GET to one receiver, without waiting (admitNow):
   * undefined when it is anything else, or when the answer would take a read
   * (then `decide`). Throws the refusals `decide` would.
   */
  forwardNow(path: string, headers: IncomingHttpHeaders): Decided | undefined {
    const at = this.forwardedPath(path);
    const routing = at && routingHeadersOf(headers);
    if (!at || !routing?.to || this.kindOf("GET", at, routing.to) !== "forward") return undefined;
    const now = admitNow(this.deps, requestOf(at, headers, routing));
    return now && { kind: "forward", inbound: inboundOf(at, now.admission, routing.to), records: now.records };
  }

  private kindOf(method: string, at: ModulePath, to: PartyRef): Decided["kind"] | undefined {
    const toHub = this.hubParties.some((p) => sameParty(p, to));
    const broadcast = toHub && method !== "GET" && at.side === "receiver" && !this.hasResponseUrl(at.module, method, at.rest);
    const merged = toHub && method === "GET" && at.side === "sender" && at.rest === "";
    if (broadcast) return "broadcast";
    if (merged) return "merged";
    return this.deps.config.parties.some((p) => sameParty(p, to)) ? undefined : "forward";
  }
}

/**
 * A segment that URL resolution takes for "." or "..", written plainly or percent-encoded (`%2e%2e`): below a
 * module's path it would lead the request at the receiver out of that module's endpoint (`…/locations/%2e%2e/credentials`
 * is its credentials, answered with the hub's token for it), past the module and forward checks.
 */
const DOT_SEGMENT = /(^|[/\\])(\.|%2e){1,2}(?=[/\\]|$)/i;

/** The module path a request names; undefined when it names none, or leaves its module (a dot segment): then it is not the hub's. */
const pathOf = (path: string): ModulePath | undefined => {
  const match = MODULE_PATH.exec(path);
  if (!match || DOT_SEGMENT.test(match[4] ?? "")) return undefined;
  return { version: match[1] as VersionNumber, side: match[2] as ModulePath["side"], module: match[3], rest: match[4] ?? "" };
};

/** The request as admission sees it; once its routing headers are read, one addressed through the hub (a from-party required). */
const requestOf = (at: ModulePath, headers: IncomingHttpHeaders, routing?: { from?: PartyRef; to?: PartyRef }): AdmissionRequest =>
  routing
    ? { authorization: headers.authorization, headers, version: at.version, module: at.module, routing, from: "required" }
    : { authorization: headers.authorization, headers, version: at.version, module: at.module };

const inboundOf = (at: ModulePath, admitted: Admission, to: PartyRef): Inbound => ({
  version: at.version,
  role: at.side === "sender" ? "SENDER" : "RECEIVER",
  module: at.module,
  rest: at.rest,
  sender: admitted.partner,
  profile: admitted.profile,
  from: admitted.from!,
  to,
});
