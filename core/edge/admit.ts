import type { IncomingHttpHeaders } from "node:http";
import type { GatewayConfig } from "../../config/types";
import type { PartnerIdentity } from "../contract/request-context";
import type { PartyRef, VersionNumber } from "../protocol/types";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../contract/partner-record";
import { EMPTY_SCOPE, inScope, type PartyScope } from "../contract/party-scope";
import { scopeOf } from "../partners/scope-of";
import { profileOf } from "../partners/partner-profile";
import { type PartnerProfile } from "../contract/partner-profile";
import { invalid, notFound, unauthorized } from "../contract/errors";
import { readRoutingHeaders } from "../http/routing-headers";
import { currentRequest } from "../http/request-scope";

/** What admission needs of the gateway: its config and its partners. */
export interface AdmissionDeps {
  config: GatewayConfig;
  registry: PartnerRegistry;
}

/** One request at the partner edge, as every entrance sees it before it does anything for the partner. */
export interface AdmissionRequest {
  /** the Authorization header as sent */
  authorization: string | undefined;
  /** the request's headers (routing headers are read from them unless `routing` is given) */
  headers: IncomingHttpHeaders;
  /** the protocol version of the path; absent where the path has none (a hub's result URL) */
  version?: VersionNumber;
  /** the module addressed; absent for configuration modules (versions, credentials) and paths of no module */
  module?: string;
  /** `bootstrap`: token A is accepted too (versions and credentials); else only a registered partner's token */
  access?: "registered" | "bootstrap";
  /** the routing headers, when the entrance read them already (a fast path reads them before authentication) */
  routing?: { from?: PartyRef; to?: PartyRef };
  /** `required`: a request addressed through the hub names its from-party, else the sender's own (non-hub) party is it */
  from?: "optional" | "required";
}

/** What the edge computed for an admitted request: entrances and plugins take it from here, never again. */
export interface Admission {
  partner: PartnerIdentity;
  /** everything per-partner, built once per registration generation (core/partners/partner-profile.ts) */
  profile: PartnerProfile;
  /** the parties the partner may speak for (empty for token A) */
  scope: PartyScope;
  /** the sending party: routing header, checked against `scope` */
  from?: PartyRef;
  /** the addressed party: routing header (which of ours serves it is the entrance's to decide) */
  to?: PartyRef;
}

/** Routing headers exist from 2.2 on, for functional modules only (OCPI 2.2.1 Transport and format, Message routing). */
export const hasRoutingHeaders = (version: VersionNumber | undefined, module: string | undefined): boolean =>
  module !== undefined && version !== "2.1.1";

/**
 * The one admission of the partner edge (issue #23): every inbound path — a
 * Koa route, the cached-GET fast path, hub forwarding, a hub's result URL,
 * a path of no route — calls this before it does anything for the partner,
 * so each asks the same questions in the same order and gets the same
 * answer:
 *
 * 1. a known token (2.2+ paths: its Base64 reading first), token A only
 *    where `access` is bootstrap — else HTTP 401 + 2000;
 * 2. the version of the path enabled for the partner (`partners[].versions`);
 * 3. the module offered to the partner in the version (`partners[].modules`,
 *    `partners[].extensions`: core/partners/module-offers.ts, as version details list it) — else 404;
 * 4. routing headers well formed, and the from-party one the partner may
 *    speak for (its scope: its registered parties, a configured hub's relayed
 *    ones) — else 2001 naming it;
 * 5. the partner's profile: page limit, strictness, header prefix, … (one
 *    object per registration generation, core/partners/partner-profile.ts).
 *
 * Body limits are the HTTP server's and the parser's (core/http/json-body.ts),
 * which every entrance's body goes through before it reaches here.
 */
export const admit = async (deps: AdmissionDeps, request: AdmissionRequest): Promise<Admission> => {
  const { identity, routing } = admitted(deps, request, await deps.registry.authenticate(request.authorization || undefined, { base64First: base64First(request) }));
  const scope = identity.via === "registered" ? await scopeOfRecord(deps, identity.record) : EMPTY_SCOPE;
  return withFrom(deps, request, identity, routing, scope);
};

/**
 * The same admission (the same checks, in the same order, with the same
 * answers), without waiting, for an entrance that can answer at once (the
 * hub's forwarded GETs, core/host/forwarded-get.ts): when the token was
 * authenticated and the partner's scope worked out under the registration
 * generation the store says is current now (PartnerRegistry.knownNow), with
 * the registrations listed under it; undefined when any of that would take a
 * read (then `admit`).
 */
export const admitNow = (deps: AdmissionDeps, request: AdmissionRequest): { admission: Admission; records: readonly PartnerRecord[] } | undefined => {
  if (!request.authorization) return undefined;
  const known = deps.registry.knownNow(request.authorization, base64First(request));
  const admission = known && admittedNow(deps, request, known.identity);
  return admission && { admission, records: known.records };
};

/**
 * `admitNow` without the registrations listed (core/host/cached-get.ts: an answer from the cache needs none), where the
 * registration generation is held without a read (PartnerRegistry.authenticatedNow: one Redis); undefined elsewhere.
 */
export const admitAtOnce = (deps: AdmissionDeps, request: AdmissionRequest): Admission | undefined => {
  const identity = request.authorization ? deps.registry.authenticatedNow(request.authorization, base64First(request)) : undefined;
  return identity && admittedNow(deps, request, identity);
};

/** Checks 1-5 for an identity known at once, when its scope was worked out already; undefined when it was not. */
const admittedNow = (deps: AdmissionDeps, request: AdmissionRequest, identity: PartnerIdentity): Admission | undefined => {
  const scope = identity.via === "registered" ? settledScopes.get(identity.record) : EMPTY_SCOPE;
  if (!scope) return undefined;
  const { routing } = admitted(deps, request, identity);
  return withFrom(deps, request, identity, routing, scope);
};

/** 2.2+ paths: a token is sent Base64-encoded, so its Base64 reading is tried first. */
const base64First = (request: AdmissionRequest): boolean => request.version !== undefined && request.version !== "2.1.1";

/** Checks 1-3 and the routing headers' form (4): the partner and its routing headers, or the refusal thrown. */
const admitted = (deps: AdmissionDeps, request: AdmissionRequest, identity: PartnerIdentity | undefined): { identity: PartnerIdentity; routing: { from?: PartyRef; to?: PartyRef } } => {
  const { version, module } = request;
  if (!identity) throw unauthorized();
  // the partner on every log line and metric of the request from here on (core/http/request-scope.ts)
  const scoped = currentRequest();
  if (scoped) scoped.partner = identity.id;
  if (identity.via === "bootstrap" && (request.access ?? "registered") !== "bootstrap")
    throw unauthorized("Token A is only valid on the versions and credentials endpoints");
  if (version && !identity.config.versions.includes(version)) throw unauthorized(`Version ${version} is not enabled for this partner`);
  if (module !== undefined && !deps.registry.modules.offers(identity.config, module, version)) throw notFound(`Module ${module}`);
  return { identity, routing: request.routing ?? (hasRoutingHeaders(version, module) ? readRoutingHeaders(request.headers) : {}) };
};

/** Check 4's from-party against the partner's scope, and the admission with its profile (5). */
const withFrom = (deps: AdmissionDeps, request: AdmissionRequest, identity: PartnerIdentity, routing: { from?: PartyRef; to?: PartyRef }, scope: PartyScope): Admission => {
  let from = routing.from;
  if (request.from === "required") {
    from ??= identity.record.roles.find((r) => r.role !== "HUB");
    if (!from) throw invalid("from-country-code/from-party-id are required for a request addressed through the hub");
  }
  // A registered partner speaks for the parties in its scope only (a configured hub relays for others).
  if (from && identity.via === "registered" && !inScope(scope, from))
    throw invalid(`from-country-code/from-party-id ${from.country_code}/${from.party_id} is not one of the partner's parties`);
  return { partner: identity, profile: profileOf(deps.config, identity.config, identity.record), scope, from, to: routing.to };
};

/**
 * The routing headers of a request whose entrance reads them before
 * admission, to know where it goes (the hub's forwarding and result URLs);
 * pass them to `admit` as `routing`. A malformed one is answered in
 * admission's order all the same: after the token, the version and the
 * module (test/core/edge-admission.test.ts), so a request without a token
 * learns nothing but 401.
 */
export const routingBeforeAdmission = async (deps: AdmissionDeps, request: AdmissionRequest): Promise<{ from?: PartyRef; to?: PartyRef }> => {
  try {
    return readRoutingHeaders(request.headers);
  } catch (error) {
    await admit(deps, { ...request, routing: {}, from: "optional" });
    throw error;
  }
};

/**
 * The admin API's side of the edge (issue #23): a partner the operator's
 * backend names (`/admin/v1/commands/:partner/…`, charging profiles, a PTP's
 * terminals) is looked up by this one rule — registered, and offered the
 * module in its version (core/partners/module-offers.ts) — and its profile is
 * what the call to it is built from. 2001 naming `partner` otherwise.
 */
export const admitPartner = async (deps: AdmissionDeps, partnerId: string, module: string): Promise<PartnerProfile & { readonly version: VersionNumber }> => {
  const record = await deps.registry.get(partnerId);
  if (!record || record.status !== "registered" || !record.version) throw invalid(`partner: ${partnerId} is not a registered partner`);
  const profile = deps.registry.profileOf(record);
  if (!deps.registry.modules.offers(profile.config, module, record.version)) throw invalid(`partner: ${partnerId} is not offered ${module} in OCPI ${record.version} (partners[].modules, partners[].extensions)`);
  return profile as PartnerProfile & { readonly version: VersionNumber };
};

/**
 * A registered partner's scope, once per record: records come from the
 * registry's token map, which is replaced (new record objects) whenever any
 * registration changes, the only thing a scope depends on besides the config.
 */
const scopes = new WeakMap<PartnerRecord, Promise<PartyScope>>();
/** the same scopes once worked out, for `admitNow` */
const settledScopes = new WeakMap<PartnerRecord, PartyScope>();
const scopeOfRecord = (deps: AdmissionDeps, record: PartnerRecord): Promise<PartyScope> => {
  let scope = scopes.get(record);
  if (!scope) {
    scope = scopeOf(deps.config, deps.registry, record);
    if (Object.isFrozen(record)) {
      scopes.set(record, scope);
      scope.then(
        (settled) => settledScopes.set(record, settled),
        () => scopes.delete(record),
      );
    }
  }
  return scope;
};
