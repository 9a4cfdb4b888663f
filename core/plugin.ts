import type { BodyMode, ObjectType, TranslationLoss } from "./model/object-type";
import type { RequestContext } from "./context";
import type { HttpMethod, InterfaceRole, ModuleId, PartyRef, Role, VersionNumber } from "./protocol/types";
import type { Page, PageRequest } from "./http/pagination";
import type { PortContext } from "./ports";
import type { PartyScope } from "./partners/party-scope";
import type { Logger } from "pino";
import type { Store } from "./store/port";
import type { GatewayConfig } from "../config/types";
import type { AdminRoute } from "./admin/admin-api";
import type { ChangeFeed } from "./events/change-feed";
import type { SyncSpec } from "./sync/sync-spec";
import type { PushSpec } from "./push/push-spec";
import type { InboundRoute } from "./host/adapter-inbound";
import type { OcpiBackend, OcpiBackendSpec } from "./client/ocpi-backend-port";


export interface OcpiRequest<B = any> {
  ctx: RequestContext;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  /** the body, validated and translated to the canonical (2.3.0) model when the route declares it */
  body: B;
  /** parsed list parameters, for paginated routes */
  page: PageRequest;
  /** the owner the route names (`RouteSpec.owner`), already checked against the partner's scope by the kernel */
  owner?: PartyRef;
  /** what the adapter port is told about this call: partner, our party, version, the partner's scope */
  port: PortContext & { scope: PartyScope };
}

export interface OcpiReply {
  /** canonical data; translated down to the request's version by the kernel when the route declares `response` */
  data?: unknown;
  /** paginated routes answer a page instead of data */
  page?: Page;
  httpStatus?: number;
  headers?: Record<string, string>;
  /** override of status_code for a successful reply, rarely needed */
  statusCode?: number;
}

export interface RouteSpec {
  method: HttpMethod;
  /** path relative to the module URL, in @koa/router syntax, e.g. "/:country_code/:party_id/:location_id" */
  path: string;
  /** `bootstrap`: token A is accepted too (versions and credentials only) */
  access?: "registered" | "bootstrap";
  body?: { type: ObjectType<any>; mode: BodyMode; optional?: boolean };
  /**
   * Where the owner of the object is named, for `OcpiRequest.owner`: the path's `:country_code/:party_id`
   * (default), or the body's own fields (a CDR is POSTed to the module URL).
   */
  owner?: "path" | "body";
  response?: ObjectType<any>;
  paginated?: boolean;
  /** versions this route exists in; default every version the plugin serves (e.g. tariff PATCH is 2.1.1 only) */
  versions?: readonly VersionNumber[];
  /**
   * A sender GET whose answer depends only on our party, the path and the
   * list parameters (not on the partner or its version): served through the
   * response cache (core/cache). One cached answer serves every request, so
   * neither the handler nor the version translation may mutate it.
   * `per-scope`: the answer also depends on the partner's scope (`req.port.scope`,
   * e.g. Sessions and CDRs belong to their token's owner), which joins the key.
   */
  cache?: boolean | "per-scope";
  handle(req: OcpiRequest): Promise<OcpiReply>;
}

/** The adapter port of each interface role of a module, e.g. `{ SENDER: LocationsSenderPort; RECEIVER: LocationsReceiverPort }`. */
export type RolePorts = { [R in InterfaceRole]?: object };

/** The methods of a port an adapter must implement; its optional ones are capabilities the plugin works without. */
export type RequiredMethods<Port> = { [K in keyof Port]-?: undefined extends Port[K] ? never : K }[keyof Port] & string;

/** For each interface role, the methods its port must implement, as data: start-up refuses an adapter whose port lacks one. */
export type PortMethods<Ports extends RolePorts> = { readonly [R in keyof Ports]: readonly RequiredMethods<Ports[R]>[] };

/**
 * A module plugin: one per OCPI module, with the same anatomy in each folder
 * under plugins/. The host mounts its routes per interface role and version,
 * derives the version-details endpoints from what is mounted, and refuses to
 * start when the config routes a module to an adapter lacking the port or
 * one of the port's methods. Ports reach the plugin as `unknown` here; the
 * base classes (core/modules/data-module.ts, core/async/async-module.ts)
 * hand them on typed, after start-up checked them against `portMethods`.
 */
export interface ModulePlugin {
  readonly module: ModuleId;
  readonly versions: readonly VersionNumber[];
  readonly roles: readonly InterfaceRole[];
  /** the party role that owns this module's data; 2.1.1 lists one URL per module, chosen by it */
  readonly dataOwner?: Role;
  /** every field a translation of this module's objects to an older version drops */
  readonly translationLosses?: readonly TranslationLoss[];
  /** configuration modules (credentials, hubclientinfo) carry no routing headers */
  readonly configurationModule?: boolean;
  /** name of the adapter port serving `role`, e.g. "locations.SENDER"; undefined when no adapter is involved */
  portName(role: InterfaceRole): string | undefined;
  /** the methods each role's port must implement (`PortMethods`), checked when the adapters are created */
  readonly portMethods?: { readonly [R in InterfaceRole]?: readonly string[] };
  routes(role: InterfaceRole, port: unknown): RouteSpec[];
  /** routes of the admin API (/admin/v1) for the backend behind the gateway, e.g. issuing commands */
  adminRoutes?(role: InterfaceRole, port: unknown): AdminRoute[];
  /**
   * Called once per served role with its port before the gateway serves, on
   * the instance that serves it: plugins whose adapters report back later
   * (command outcomes) hand them their sink here.
   */
  connect?(role: InterfaceRole, port: unknown): void;
  /** how a partner's SENDER list of this module is pulled into our RECEIVER port (`partners[].sync`) */
  readonly syncSpec?: SyncSpec;
  /** how changes of our own data in this module are pushed to partners' RECEIVER interfaces */
  readonly pushSpec?: PushSpec;
}

/** An adapter instance: a named set of port implementations over one backend. */
export interface Adapter {
  readonly ports: Readonly<Record<string, unknown>>;
  start?(): Promise<void>;
  stop?(): Promise<void>;
  /**
   * Whether the backend answers now (a cheap query, a ping): `/ready` fails while it rejects or
   * resolves false. Optional: an adapter without it is ready once started.
   */
  ready?(): Promise<boolean | void>;
  /** routes its backend calls (a webhook), at `/adapters/<adapter name><path>` (core/host/adapter-inbound.ts) */
  readonly inbound?: readonly InboundRoute[];
}

export interface AdapterFactory {
  /** the `type` of `adapters.<name>` in the config (defaults to the name itself) */
  readonly type: string;
  /** port names an instance can implement, known before it is created so the config can be checked */
  readonly portNames: readonly string[];
  create(settings: Record<string, unknown>, deps: AdapterDeps): Promise<Adapter>;
  /**
   * Problems of `adapters.<name>` as `path: message` lines (`base` is where it sits, e.g. "adapters.steve"),
   * checked before any adapter is created, so `check-config` reports them; absent: the adapter checks in `create`.
   */
  checkSettings?(settings: Record<string, unknown>, base: string): string[];
}

/** A partner eMSP's answer to a real-time authorization (AuthorizationInfo.allowed), as an adapter sees it. */
export type TokenOwnerAnswer = { kind: "answered"; allowed: string } | { kind: "unknown_token" } | { kind: "location_required" };

/** What an adapter may use of the gateway: its store (the `local` adapter keeps its data there), config and logger. */
export interface AdapterDeps {
  store: Store;
  config: GatewayConfig;
  log: Logger;
  /** where an adapter reports changes of data our parties own (pushes and cache invalidation follow) */
  changes: ChangeFeed;
  /** problems of `object` as a canonical (2.3.0) object of `module`'s top-level type; empty when valid (or the module has no such type) */
  validateCanonical(module: string, object: unknown): string[];
  /**
   * Real-time authorization by the token's owner (OCPI tokens `POST {uid}/authorize` on the registered partner
   * acting for `owner`): what a CPO backend without its own token list asks. Undefined when no registered
   * partner acts for `owner`; rejects when the call fails.
   */
  askTokenOwner(owner: PartyRef, token: { uid: string; type: string }): Promise<TokenOwnerAnswer | undefined>;
  /**
   * A client of a backend that speaks OCPI itself (the `proxy` adapter), on the canonical model: calls go
   * only to the origin of its versions URL (the outbound URL policy), objects are validated and translated.
   */
  ocpiBackend(spec: OcpiBackendSpec): OcpiBackend;
}

export const portNameOf = (module: ModuleId, role: InterfaceRole): string => `${module}.${role}`;
