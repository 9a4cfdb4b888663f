/** The validated, interpolated gateway configuration (see config/schema.ts and README "Config reference"). */
import type { InterfaceRole, Role, VersionNumber } from "../core/protocol/vocabulary";

export type { InterfaceRole, Role, VersionNumber };
export type TokenEncoding = "base64" | "raw" | "auto";
export type HeaderPrefix = "OCPI" | "ROAMING";
/** how invalid objects from a partner are read (README "Tolerant reader"): refused, accepted as they are, or repaired */
export type Strictness = "reject" | "log" | "repair";
/** An extension of its version a partner speaks (`partners[].extensions`): `direct_payment`, the payments module in 2.2.1. */
export type PartnerExtension = "direct_payment";

export interface ImageConfig {
  url: string;
  thumbnail?: string;
  category: string;
  type: string;
  width?: number;
  height?: number;
}

export interface BusinessDetailsConfig {
  name: string;
  website?: string;
  logo?: ImageConfig;
}

export interface PartyConfig {
  country_code: string;
  party_id: string;
  role: Role;
  business_details: BusinessDetailsConfig;
}

export interface ServerConfig {
  port: number;
  /** interface to bind; defaults to 127.0.0.1 */
  host: string;
  /** base of every URL we advertise, e.g. https://ocpi.example.com/gw (no trailing slash) */
  public_url: string;
  /** server-side cap on `limit` for every paginated list */
  max_page_limit: number;
  /** seconds a rotated-out token keeps working after a credentials PUT (0 = spec-strict) */
  token_grace_seconds: number;
  /** timeout for calls to partners, ms */
  request_timeout_ms: number;
  log_level: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** 2.3.0 hub party of this platform (CC + party id), when we act as a hub */
  hub_party_id?: string;
  /** bearer token of the admin API (/admin/v1); the admin API is off without it */
  admin_token?: string;
  /**
   * seconds an asynchronous outcome (command result, charging-profile result) may take: announced as `timeout`
   * for requests we receive, and our grace beyond the partner's timeout for requests we send; default 30
   */
  command_timeout_seconds?: number;
  /** milliseconds between the checks that mark RESERVED bookings nobody came for NO_SHOW (bookings module, docs/bookings.md); default 60000 */
  booking_check_interval_ms?: number;
  /** limits of the HTTP server partners call (README "Config reference", `server.inbound`); default DEFAULT_INBOUND */
  inbound?: InboundServerConfig;
  /** Prometheus `/metrics`: on a port of its own (`port`, bound to `host`, no auth), else on the main port behind the admin token (README "Operating it") */
  metrics?: { port?: number; host: string };
  /** ms between `/ready` turning false on SIGTERM and the listener closing, for load balancers to notice; default 0 */
  shutdown_delay_ms?: number;
  /** the gateway as a hub (README "Hubs and forwarding"): how partners' connection status is watched */
  hub?: HubServerConfig;
  /**
   * how far V8 lets the heap grow past what its last full collection kept before it collects again, per cent, in
   * the processes of the CLI (`start`, `sync` …) (app/heap-growth.ts); 0: V8's own choice; default DEFAULT_HEAP_GROWTH_PERCENT
   */
  heap_growth_percent?: number;
}

export interface HubServerConfig {
  /** a partner whose calls (pushes, probes, forwarded requests) have failed this long is OFFLINE; default 60000 */
  offline_after_ms: number;
  /** how often each registered partner is probed (GET of its versions URL); default 30000 */
  probe_interval_ms: number;
  /** timeout of a forwarded request; default server.request_timeout_ms */
  forward_timeout_ms?: number;
}

export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 30;

/**
 * The longest `store.generation_lease_ms`: also the longest a write waits for another instance's lease
 * (core/store/shared-reads.ts), whatever the leases hash holds.
 */
export const MAX_GENERATION_LEASE_MS = 1000;

/** server.heap_growth_percent unless set (app/heap-growth.ts says why and what it was measured to do) */
export const DEFAULT_HEAP_GROWTH_PERCENT = 100;

/** Limits of the inbound HTTP server; each guards the gateway against a slow or greedy client. */
export interface InboundServerConfig {
  /** ms to receive the request line and headers (slowloris); at most request_timeout_ms */
  headers_timeout_ms: number;
  /** ms to receive a whole request, body included (a trickled body) */
  request_timeout_ms: number;
  /** ms an idle kept-alive connection stays open between requests */
  keep_alive_timeout_ms: number;
  /** open connections per client address; 0: no cap (behind a reverse proxy every connection is the proxy's) */
  max_connections_per_client: number;
  /** bytes of request line plus headers (a long URL counts) */
  max_header_bytes: number;
  /** bytes of a request body (README "Answers and errors"; core/http/body-limits.ts) */
  max_body_bytes: number;
  /** members of any one object in a request body */
  max_object_members: number;
  /** members of all objects plus elements of all arrays of a request body */
  max_body_members: number;
  /** distinct layouts (orders of member names) of the objects of a request body: each new one costs V8 a hidden class */
  max_body_layouts: number;
  /** bytes of any one string (keys included) or number of a request body, as sent */
  max_string_bytes: number;
  /** a body of at least this many bytes is heavy: it waits for the heavy lane (core/http/heavy-lane.ts) */
  heavy_body_bytes: number;
  /** a body of at least this many members and array elements is heavy */
  heavy_body_members: number;
  /** a body of at least this many layouts is heavy */
  heavy_body_layouts: number;
  /** the share of the gateway's time heavy bodies may take: after each, the lane pauses its busy time × (1 − share) / share */
  heavy_body_share: number;
  /** heavy bodies one client (one Authorization) may have waiting or served at once; one more is HTTP 429 */
  heavy_body_queue: number;
  /** the longest a heavy body waits for its turn; then HTTP 429 with Retry-After */
  heavy_body_max_wait_ms: number;
  /** the share of the event loop the pieces of weighty bodies (64 KiB or 2,000 members on) may take while other requests are being served (core/http/weighty-turns.ts) */
  weighty_body_share: number;
  /** refused request bodies answered per second per client address (and as many at once); more wait unread (core/http/refusal-pacing.ts) */
  refusals_per_second: number;
}

export const DEFAULT_INBOUND: InboundServerConfig = {
  headers_timeout_ms: 10_000,
  request_timeout_ms: 30_000,
  keep_alive_timeout_ms: 5_000,
  max_connections_per_client: 64,
  max_header_bytes: 16_384,
  max_body_bytes: 2 * 1024 * 1024,
  max_object_members: 200,
  max_body_members: 50_000,
  max_body_layouts: 250,
  max_string_bytes: 65_536,
  heavy_body_bytes: 131_072,
  heavy_body_members: 10_000,
  heavy_body_layouts: 100,
  heavy_body_share: 0.003,
  heavy_body_queue: 2,
  heavy_body_max_wait_ms: 10_000,
  weighty_body_share: 0.5,
  refusals_per_second: 10,
};

/** Timeouts (ms) bound how long a request waits for a store that is down; unset: the store's defaults (core/store). */
export type StoreConfig =
  | { type: "sqlite"; path: string; busy_timeout_ms?: number }
  | { type: "redis"; url: string; key_prefix: string; command_timeout_ms?: number; generation_lease_ms?: number }
  | { type: "redis-cluster"; nodes: string[]; key_prefix: string; command_timeout_ms?: number; replica_ack_timeout_ms?: number };

export interface ModuleRouteConfig {
  /** name of the adapter (key of `adapters`, or a built-in like `local`) that serves this module */
  adapter: string;
  /** interface roles we serve; default: every role the plugin offers and the adapter implements */
  roles?: InterfaceRole[];
  /**
   * parties (CC+party id, e.g. "NLGWY") this module serves, each on `adapter` or, written `{ party, adapter }`,
   * on an adapter of its own (README "Several parties on one gateway"); default: all of `parties`, on `adapter`
   */
  parties?: (string | ModulePartyRoute)[];
}

/** One of our parties whose part of a module is served by an adapter other than the module's. */
export interface ModulePartyRoute {
  party: string;
  adapter: string;
}

export interface PartnerConfig {
  id: string;
  /** bootstrap token of this partnership (the token A we handed over, or the one the partner gave us) */
  token_a?: string;
  /** the partner's versions endpoint (needed when we initiate the registration) */
  versions_url?: string;
  /** versions we accept with this partner; default all supported */
  versions: VersionNumber[];
  token_encoding: TokenEncoding;
  header_prefix: HeaderPrefix;
  /** modules this partner may use; default all served modules */
  modules?: string[];
  /** extensions of its version the partner speaks; default none (each module declares the extension it needs: ModulePlugin.extensionOnly, core/partners/module-offers.ts) */
  extensions?: PartnerExtension[];
  /**
   * roles (and parties) the partner may claim in its credentials; default: any role but HUB, for any party
   * that is neither ours nor another partner's. Only a partner listed here with HUB relays others' objects.
   */
  roles?: PartnerRoleConfig[];
  strictness: Strictness;
  /** every optional field of the objects we send the partner present, null when absent (frameworks that require every key) */
  send_nulls_for_optional?: boolean;
  /** `host` or `host:port` the partner may also be called at, besides the origin of versions_url (README "Outbound URL policy") */
  callback_hosts: string[];
  /** cron schedules per module for sync pulls (issue #5) */
  sync?: Record<string, string>;
  /** how far before the last pull's start an incremental pull asks from (date_from), for clock skew and late writes; default 60 */
  sync_overlap_seconds?: number;
  /** retries of failing pages within one sync pull (README "Sync pulls"); defaults in core/sync/page-retry.ts */
  sync_retry?: PartnerSyncRetryConfig;
  /** cap on `limit` of the lists this partner reads from us, when it must differ from server.max_page_limit */
  max_page_limit?: number;
  /**
   * forwarding of this partner's requests addressed to another partner's party (README "Hubs and forwarding"):
   * true (to every partner), false, or the ids of the partners they may reach; default true when the gateway is a hub
   */
  forward?: boolean | string[];
  /** delivery of pushes to this partner (README "Pushes"); defaults in core/outbox/retry-policy.ts */
  push?: PartnerPushConfig;
}

export interface PartnerRoleConfig {
  role: Role;
  /** the party (country_code + party_id, e.g. "NLEMA") the role is allowed for; absent: any party */
  party?: string;
}

export interface PartnerSyncRetryConfig {
  /** retries per pull, across its pages */
  retries?: number;
  /** first wait before a page is fetched again, doubling per retry of that page, ms */
  base_delay_ms?: number;
  /** cap on any one wait, the partner's Retry-After included, ms */
  max_delay_ms?: number;
}

export interface PartnerPushConfig {
  /** first retry delay after a failed delivery, ms */
  base_delay_ms?: number;
  /** upper bound of the exponential retry delay, ms */
  max_delay_ms?: number;
  /** unreachable for longer than this: superseded updates are dropped and a full resync follows, ms */
  backlog_window_ms?: number;
  /** messages delivered to this partner at once, in order per object; default 16 (core/outbox/outbox-worker.ts) */
  concurrency?: number;
}

export interface GatewayConfig {
  server: ServerConfig;
  parties: PartyConfig[];
  store: StoreConfig;
  modules: Record<string, ModuleRouteConfig>;
  adapters: Record<string, Record<string, unknown>>;
  partners: PartnerConfig[];
  /** cache of sender GET answers (README "Cache"); absent: DEFAULT_CACHE_CONFIG */
  cache?: CacheConfig;
  /** the CDR audit (README "Auditing CDRs and invoices"); absent: DEFAULT_AUDIT_CONFIG */
  audit?: AuditConfig;
}

export interface AuditConfig {
  /** how far a CDR's amount may be from the re-priced one and still match, in the CDR's currency; default 0.01 */
  tolerance: number;
  /** per currency (ISO 4217), overriding `tolerance` */
  tolerance_by_currency: Record<string, number>;
}

export const DEFAULT_AUDIT_CONFIG: AuditConfig = { tolerance: 0.01, tolerance_by_currency: {} };

export interface CacheConfig {
  /** seconds an answer may be served from the cache, per module; 0 or not listed: not cached */
  ttl_seconds: Record<string, number>;
  /** entries of the in-process tier */
  max_entries: number;
  /** use Redis as the shared second tier: `redis_url`, else the store's Redis (store.type redis) */
  redis: boolean;
  /** a Redis for the cache only (e.g. beside a SQLite store) */
  redis_url?: string;
  /** a Redis Cluster for the cache only: URLs of some of its nodes */
  redis_nodes?: string[];
}

export const DEFAULT_CACHE_TTL_SECONDS: Readonly<Record<string, number>> = { locations: 60, tariffs: 300, tokens: 60, sessions: 10, cdrs: 60 };
export const DEFAULT_CACHE_CONFIG: CacheConfig = { ttl_seconds: { ...DEFAULT_CACHE_TTL_SECONDS }, max_entries: 1000, redis: true };
