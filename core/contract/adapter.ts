import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { PartyRef } from "../protocol/types";
import type { Store } from "./store";
import type { ChangeFeed } from "./change-feed";
import type { InboundRoute } from "./inbound-route";
import type { OcpiBackend, OcpiBackendSpec } from "./ocpi-backend";

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
  /** routes its backend calls (a webhook), at `/adapters/<adapter name><path>` (core/http/adapter-inbound.ts) */
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
