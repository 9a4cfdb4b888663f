import type { HeaderPrefix, Strictness, TokenEncoding } from "../../config/types";
import type { InterfaceRole, PartyRef, VersionNumber } from "../protocol/types";
import type { Page, PageRequest } from "./page";
import type { PortContext, PutOutcome } from "./port-context";

/** A backend that speaks OCPI for some modules (the `proxy` adapter): where it is and how the gateway calls it. */
export interface OcpiBackendSpec {
  /** the adapter's name: in messages ("<name> backend unavailable") and as the "partner" of translation and repair logs */
  name: string;
  /** the backend's versions endpoint; its origin is the only one the gateway calls (the outbound URL policy) */
  versionsUrl: string;
  /** the version to speak with it; default the highest both support */
  version?: VersionNumber;
  /** the token the backend issued to the gateway */
  token: string;
  tokenEncoding: TokenEncoding;
  headerPrefix: HeaderPrefix;
  /** how invalid objects in its answers are read (README "Partners off the spec") */
  strictness: Strictness;
}

/**
 * An OCPI client of one backend, on the canonical model: each call goes to
 * the backend's endpoint of a module and interface role (discovered from its
 * versions endpoint once, again after a failure), objects are read under the
 * spec's strictness in the backend's version and translated up, bodies
 * translated down. Failures are the answers a port gives: the backend down,
 * its token refused or its answer not OCPI is BackendUnavailableError (503 +
 * 3000); an object it serves that is invalid is 3001 naming the fields (the
 * gateway cannot use the backend's API; the partner did nothing wrong); its
 * 2xxx answers (an object it refuses, an unknown location) reach the partner
 * as they came.
 */
export interface OcpiBackend {
  /** a page of the module's SENDER list, objects of `ctx.party` */
  list<T>(module: string, page: PageRequest, ctx: PortContext): Promise<Page<T>>;
  /** one object below the module's endpoint of `role` (e.g. "/LOC1", "/NL/ABC/TOK1?type=RFID"); undefined when it answers 404 */
  get<T>(module: string, role: InterfaceRole, path: string, ctx: PortContext, owner?: PartyRef): Promise<T | undefined>;
  /** PUT of a whole object on the module's RECEIVER endpoint: created (HTTP 201) or updated */
  put(module: string, path: string, object: unknown, ctx: PortContext, owner: PartyRef): Promise<PutOutcome>;
  /** POST of a whole object to the module's RECEIVER endpoint (a CDR) */
  post(module: string, object: unknown, ctx: PortContext, owner: PartyRef): Promise<void>;
  /** DELETE on the module's RECEIVER endpoint; false when it answers 404 */
  delete(module: string, path: string, ctx: PortContext, owner: PartyRef): Promise<boolean>;
  /** whether the backend answers now: its endpoints discovered */
  ready(): Promise<boolean>;
}
