import type { BodyMode, ObjectType, TranslationLoss } from "./object-type";
import type { RequestContext } from "./request-context";
import type { HttpMethod, InterfaceRole, ModuleId, PartyRef, Role, VersionNumber } from "../protocol/types";
import type { JsonPage, Page, PageRequest } from "./page";
import type { PortContext } from "./port-context";
import type { PartyScope } from "./party-scope";
import type { AdminRoute } from "./admin-route";
import type { SyncSpec } from "./sync-spec";
import type { PushSpec } from "./push-spec";
import type { PartnerExtension } from "../../config/types";
import type { Registry } from "prom-client";
import type { PartnerFigure } from "./partner-figure";


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
  /** paginated routes answer a page instead of data: of objects, or of their stored JSON (JsonPage) */
  page?: Page | JsonPage;
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
  /**
   * For a route answering JsonPages: what its objects, parsed, need before they are translated to a
   * version that does not take their stored JSON as it is (Sessions: their Location, for 2.1.1).
   */
  completeItems?(items: unknown[]): Promise<unknown[]>;
  handle(req: OcpiRequest): Promise<OcpiReply>;
}

/**
 * Where a request carries the response_url its result is posted to (`body` or `query`), and the path below
 * the sender's interface of the module the result belongs under (for its object type).
 */
export interface ResponseUrlSpot {
  where: "body" | "query";
  resultRest: string;
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
  /**
   * versions in which the module exists only through an extension of the protocol: offered to a partner in
   * such a version only when `partners[].extensions` names the extension (core/partners/module-offers.ts)
   */
  readonly extensionOnly?: Readonly<Partial<Record<VersionNumber, PartnerExtension>>>;
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
  /**
   * how changes of our own data in this module are pushed to partners' RECEIVER interfaces; its `audience`
   * also says whether a hub may broadcast a partner's push of the module (core/hub/forwarder.ts): only a
   * module whose changes go to every entitled partner (no audience) is broadcast
   */
  readonly pushSpec?: PushSpec;
  /**
   * Where a request of `method` to `rest` below this module's `role` interface carries the response_url its
   * result is posted to (asynchronous modules); undefined for a request that carries none. A hub forwarding
   * such a request puts its own URL there and relays the result to the sender (core/hub/result-relay.ts).
   */
  responseUrlOf?(role: InterfaceRole, method: string, rest: string): ResponseUrlSpot | undefined;
  /** figures about a partner for its card on the status page (core/admin/status-page), read when the page is asked */
  partnerFigures?(partnerId: string, now: number): Promise<readonly PartnerFigure[]>;
  /** Prometheus metrics the module counts itself (a prom-client Registry), scraped with the gateway's (core/metrics) */
  readonly metrics?: Registry;
}

export const portNameOf = (module: ModuleId, role: InterfaceRole): string => `${module}.${role}`;
