/**
 * zod 4 schema of gateway.config.yaml (after `${ENV}` interpolation), with the
 * defaults filled in, plus the translation of zod issues into human
 * `path: message` lines (see `validateConfigObject`).
 *
 * Rules for messages: they say what is expected, never echo the offending
 * value (it may be a token, a password or a URL with credentials), and name the
 * place as `partners[1].token_a`.
 */
import { z } from "zod";
import { validate as validateCron } from "node-cron";
import { isIP } from "node:net";
import type { GatewayConfig } from "./types";
import { INTERFACE_ROLES, ROLES, SUPPORTED_VERSIONS } from "../core/protocol/vocabulary";
import { discriminatedOption, readTypedStrings, unwrap, type AnySchema } from "./typed-strings";
import { DEFAULT_CACHE_CONFIG, DEFAULT_CACHE_TTL_SECONDS, DEFAULT_COMMAND_TIMEOUT_SECONDS, DEFAULT_HEAP_GROWTH_PERCENT, DEFAULT_INBOUND, MAX_GENERATION_LEASE_MS } from "./types";

// ---------------------------------------------------------------------------
// Messages (exported so other modules and tests can refer to them)
// ---------------------------------------------------------------------------

export const TOKEN_ENCODINGS = ["base64", "raw", "auto"] as const;
export const HEADER_PREFIXES = ["OCPI", "ROAMING"] as const;
export const STRICTNESS = ["reject", "log", "repair"] as const;
export const PARTNER_EXTENSIONS = ["direct_payment"] as const;
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export const IMAGE_CATEGORIES = ["CHARGER", "ENTRANCE", "LOCATION", "NETWORK", "OPERATOR", "OTHER", "OWNER"] as const;

export const DEFAULT_SQLITE_PATH = "./data/gateway.db";
export const DEFAULT_REDIS_KEY_PREFIX = "ocpi:";

const oneOf = (values: readonly string[]): string => `must be one of: ${values.join(", ")}`;

export const MESSAGES = {
  port: "must be an integer between 1 and 65535",
  host: "must be a non-empty host name or IP address to bind to",
  publicUrl: "must be an absolute http:// or https:// URL without query string or fragment",
  httpUrl: "must be an absolute http:// or https:// URL",
  maxPageLimit: "must be an integer between 1 and 10000",
  tokenGrace: "must be a whole number of seconds (0 or more)",
  requestTimeout: "must be an integer between 1 and 600000 (milliseconds)",
  logLevel: oneOf(LOG_LEVELS),
  hubPartyId: 'must be 2 uppercase letters followed by 3 uppercase letters or digits, e.g. "NLHUB"',
  countryCode: "must be exactly 2 uppercase letters (ISO 3166-1 alpha-2)",
  partyId: "must be exactly 3 uppercase letters or digits (ISO 15118 party id)",
  role: oneOf(ROLES),
  businessName: "must be 1-100 characters",
  imageCategory: oneOf(IMAGE_CATEGORIES),
  imageType: 'must be a file type of 1-4 lowercase letters, e.g. "png"',
  imageSize: "must be an integer between 1 and 99999 (pixels)",
  storeType: oneOf(["sqlite", "redis", "redis-cluster"]),
  redisNodes: "must list at least one redis:// or rediss:// URL of a cluster node",
  storeTimeout: "must be a whole number of milliseconds between 1 and 60000",
  generationLease: `must be a whole number of milliseconds between 0 and ${MAX_GENERATION_LEASE_MS}`,
  sqlitePath: "must be a non-empty file path",
  redisUrl: "must be a redis:// or rediss:// URL",
  keyPrefix: "must be a string of at most 100 characters",
  moduleId: "must be a module id (lowercase letters, digits and _, starting with a letter, e.g. locations)",
  adapterName: "must be an adapter name (letters, digits, _ and -, starting with a letter)",
  adapterRef: "must be the non-empty name of an adapter",
  interfaceRole: oneOf(INTERFACE_ROLES),
  partyRef: 'must be a party reference: country_code + party_id, e.g. "NLGWY"',
  modulePartyRoute: 'must be a party reference ("NLGWY") or { party: NLGWY, adapter: <name> }',
  partnerId: "must be 1-64 characters of letters, digits, _ . and -",
  tokenA: "must be 1-64 printable ASCII characters (U+0021-U+007E)",
  adminToken: "must be 16-128 printable ASCII characters (U+0021-U+007E)",
  version: oneOf(SUPPORTED_VERSIONS),
  tokenEncoding: oneOf(TOKEN_ENCODINGS),
  headerPrefix: oneOf(HEADER_PREFIXES),
  strictness: oneOf(STRICTNESS),
  callbackHost: 'must be a host like "ocpi.partner.example", optionally with a port ("ocpi.partner.example:8443", "[2001:db8::1]:8443"; no scheme or path)',
  cron: 'must be a valid cron expression (5 or 6 fields, e.g. "*/15 * * * *")',
  syncOverlap: "must be a whole number of seconds between 0 and 86400",
  syncRetries: "must be a whole number between 0 and 100",
  syncRetryDelay: "must be a whole number of milliseconds between 1 and 3600000 (one hour)",
  pushDelay: "must be a whole number of milliseconds between 1 and 86400000 (one day)",
  pushWindow: "must be a whole number of milliseconds between 1 and 2592000000 (30 days)",
  pushConcurrency: "must be a whole number between 1 and 256",
  adapterSettings: "must be a mapping of adapter settings",
  commandTimeout: "must be a whole number of seconds between 1 and 86400",
  heapGrowth: "must be a whole number of per cent between 0 and 400 (0: V8's own choice)",
  cacheTtl: "must be a number of seconds between 0 and 86400 (0: not cached)",
  cacheMaxEntries: "must be an integer between 1 and 10000000",
  cacheRedis: "must be true or false",
  inboundTimeout: "must be a whole number of milliseconds between 100 and 3600000 (one hour)",
  inboundConnections: "must be an integer between 0 (no cap) and 100000",
  metricsPort: "must be an integer between 1 and 65535 (a port of its own for /metrics, without auth), or absent (/metrics behind the admin token)",
  shutdownDelay: "must be a whole number of milliseconds between 0 and 600000",
  inboundHeaderBytes: "must be an integer between 1024 and 1048576 (bytes)",
  inboundBodyBytes: "must be an integer between 1024 and 1073741824 (bytes)",
  inboundBodyCount: "must be an integer between 1 and 100000000",
  inboundStringBytes: "must be an integer between 1 and 1073741824 (bytes)",
} as const;

// ---------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------

interface LooseIssue {
  code?: string;
  input?: unknown;
  expected?: string;
  [k: string]: unknown;
}

/** A string where a number was expected did not read as one (config/typed-strings.ts): say how a number is written. */
const withNotation = (text: string, expected: string | undefined): string =>
  expected === "number" || expected === "int" ? `${text}, in decimal digits` : text;

/**
 * Schema-level error: `text` for every failure of this schema, except for a
 * missing/empty value and a wrong scalar type for a string field, which the
 * generic messages (`humanIssueMessage`) describe better.
 */
function msg(text: string) {
  return (iss: LooseIssue): string | undefined => {
    if (iss.input === undefined || iss.input === null) return undefined;
    if (iss.code === "invalid_type" && iss.expected === "string" && typeof iss.input !== "string") return undefined;
    if (iss.code === "invalid_type" && typeof iss.input === "string") return withNotation(text, iss.expected);
    return text;
  };
}

/** A string matching `re`, with `text` as the one message for it. */
const str = (re: RegExp, text: string) => z.string({ error: msg(text) }).regex(re, { error: text });

// Numbers and booleans given as strings (`${ENV}`, or quoted) are read before validation: config/typed-strings.ts.

/** An integer between min and max. */
function int(min: number, max: number, text: string) {
  return z
    .number({ error: msg(text) })
    .int({ error: text })
    .min(min, { error: text })
    .max(max, { error: text });
}

/** A number between min and max, fractions allowed. */
function decimal(min: number, max: number, text: string) {
  return z.number({ error: msg(text) }).min(min, { error: text }).max(max, { error: text });
}

/** true or false. */
function bool(text: string) {
  return z.boolean({ error: msg(text) });
}

/** `null` (an empty YAML value such as `partners:`) counts as absent, so defaults apply. */
function nullAsAbsent<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (v === null ? undefined : v), schema);
}

function isUrlWith(s: string, protocols: readonly string[]): URL | undefined {
  if (/\s/.test(s)) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  if (!protocols.includes(u.protocol) || u.hostname === "") return undefined;
  return u;
}

const httpUrl = (text: string = MESSAGES.httpUrl) =>
  z.string({ error: msg(text) }).refine((s) => isUrlWith(s, ["http:", "https:"]) !== undefined, { error: text });

const HOSTNAME_RE =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
/** A `partners[].callback_hosts` entry: `host` (the scheme's default port) or `host:port`; IPv6 in brackets. */
const CALLBACK_HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/;
const isCallbackHost = (s: string): boolean => {
  const m = CALLBACK_HOST_RE.exec(s);
  if (!m) return false;
  const host = m[1].startsWith("[") ? isIP(m[1].slice(1, -1)) === 6 : HOSTNAME_RE.test(m[1]);
  return host && (m[2] === undefined || (Number(m[2]) >= 1 && Number(m[2]) <= 65535));
};
const MODULE_ID_RE = /^[a-z][a-z0-9_]*$/;
const PARTY_REF_RE = /^[A-Z]{2}[A-Z0-9]{3}$/;

function uniqueItems(what: string) {
  return (items: readonly unknown[], ctx: z.RefinementCtx) => {
    const seen = new Map<unknown, number>();
    items.forEach((item, i) => {
      const first = seen.get(item);
      if (first === undefined) seen.set(item, i);
      else ctx.addIssue({ code: "custom", path: [i], message: `duplicate ${what} (already listed at index ${first})` });
    });
  };
}

// ---------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------

const inboundTimeout = (fallback: number) => int(100, 3_600_000, MESSAGES.inboundTimeout).default(fallback);

/** `server.inbound`: limits of the HTTP server partners call; Node rejects a headers timeout above the request timeout. */
export const inboundSchema = z
  .strictObject({
    headers_timeout_ms: inboundTimeout(DEFAULT_INBOUND.headers_timeout_ms),
    request_timeout_ms: inboundTimeout(DEFAULT_INBOUND.request_timeout_ms),
    keep_alive_timeout_ms: inboundTimeout(DEFAULT_INBOUND.keep_alive_timeout_ms),
    max_connections_per_client: int(0, 100_000, MESSAGES.inboundConnections).default(DEFAULT_INBOUND.max_connections_per_client),
    max_header_bytes: int(1024, 1_048_576, MESSAGES.inboundHeaderBytes).default(DEFAULT_INBOUND.max_header_bytes),
    // what a request body may weigh before it is parsed (core/http/body-limits.ts)
    max_body_bytes: int(1024, 1_073_741_824, MESSAGES.inboundBodyBytes).default(DEFAULT_INBOUND.max_body_bytes),
    max_object_members: int(1, 100_000_000, MESSAGES.inboundBodyCount).default(DEFAULT_INBOUND.max_object_members),
    max_body_members: int(1, 100_000_000, MESSAGES.inboundBodyCount).default(DEFAULT_INBOUND.max_body_members),
    max_body_layouts: int(1, 100_000_000, MESSAGES.inboundBodyCount).default(DEFAULT_INBOUND.max_body_layouts),
    max_string_bytes: int(1, 1_073_741_824, MESSAGES.inboundStringBytes).default(DEFAULT_INBOUND.max_string_bytes),
  })
  .refine((inbound) => inbound.headers_timeout_ms <= inbound.request_timeout_ms, {
    path: ["headers_timeout_ms"],
    error: "must not exceed request_timeout_ms (the headers are part of the request)",
  });

export const serverSchema = z.strictObject({
  port: int(1, 65535, MESSAGES.port).default(8080),
  host: z.string({ error: msg(MESSAGES.host) }).min(1, { error: MESSAGES.host }).default("127.0.0.1"),
  public_url: z
    .string({ error: msg(MESSAGES.publicUrl) })
    .refine(
      (s) => {
        const u = isUrlWith(s, ["http:", "https:"]);
        return u !== undefined && u.search === "" && u.hash === "" && !/[?#]/.test(s);
      },
      { error: MESSAGES.publicUrl },
    )
    .transform((s) => s.replace(/\/+$/, "")),
  max_page_limit: int(1, 10000, MESSAGES.maxPageLimit).default(100),
  token_grace_seconds: int(0, Number.MAX_SAFE_INTEGER, MESSAGES.tokenGrace).default(0),
  request_timeout_ms: int(1, 600000, MESSAGES.requestTimeout).default(10000),
  log_level: z.enum(LOG_LEVELS, { error: msg(MESSAGES.logLevel) }).default("info"),
  hub_party_id: str(PARTY_REF_RE, MESSAGES.hubPartyId).optional(),
  admin_token: str(/^[\x21-\x7E]{16,128}$/, MESSAGES.adminToken).optional(),
  command_timeout_seconds: int(1, 86400, MESSAGES.commandTimeout).default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
  inbound: nullAsAbsent(inboundSchema.optional()),
  metrics: nullAsAbsent(
    z.strictObject({ port: int(1, 65535, MESSAGES.metricsPort).optional(), host: z.string({ error: msg(MESSAGES.host) }).min(1, { error: MESSAGES.host }).default("127.0.0.1") }).optional(),
  ),
  shutdown_delay_ms: int(0, 600_000, MESSAGES.shutdownDelay).optional(),
  heap_growth_percent: int(0, 400, MESSAGES.heapGrowth).default(DEFAULT_HEAP_GROWTH_PERCENT),
  // Hubs and forwarding (issue #13): connection status of partners' parties and how it is watched.
  hub: nullAsAbsent(
    z
      .strictObject({
        offline_after_ms: int(1, 86_400_000, "must be a whole number of milliseconds between 1 and 86400000").default(60_000),
        probe_interval_ms: int(100, 86_400_000, "must be a whole number of milliseconds between 100 and 86400000").default(30_000),
        forward_timeout_ms: int(1, 600_000, "must be a whole number of milliseconds between 1 and 600000").optional(),
      })
      .optional(),
  ),
});

export const imageSchema = z.strictObject({
  url: httpUrl(),
  thumbnail: httpUrl().optional(),
  category: z.enum(IMAGE_CATEGORIES, { error: msg(MESSAGES.imageCategory) }),
  type: str(/^[a-z]{1,4}$/, MESSAGES.imageType),
  width: int(1, 99999, MESSAGES.imageSize).optional(),
  height: int(1, 99999, MESSAGES.imageSize).optional(),
});

export const partySchema = z.strictObject({
  country_code: str(/^[A-Z]{2}$/, MESSAGES.countryCode),
  party_id: str(/^[A-Z0-9]{3}$/, MESSAGES.partyId),
  role: z.enum(ROLES, { error: msg(MESSAGES.role) }),
  business_details: z.strictObject({
    name: z
      .string({ error: msg(MESSAGES.businessName) })
      .min(1, { error: MESSAGES.businessName })
      .max(100, { error: MESSAGES.businessName }),
    website: httpUrl().optional(),
    logo: imageSchema.optional(),
  }),
});

const sqliteStoreSchema = z.strictObject({
  type: z.literal("sqlite"),
  path: z.string({ error: msg(MESSAGES.sqlitePath) }).min(1, { error: MESSAGES.sqlitePath }).default(DEFAULT_SQLITE_PATH),
  busy_timeout_ms: int(1, 60_000, MESSAGES.storeTimeout).optional(),
});

const redisStoreSchema = z.strictObject({
  type: z.literal("redis"),
  url: z
    .string({ error: msg(MESSAGES.redisUrl) })
    .refine((s) => isUrlWith(s, ["redis:", "rediss:"]) !== undefined, { error: MESSAGES.redisUrl }),
  key_prefix: z
    .string({ error: msg(MESSAGES.keyPrefix) })
    .max(100, { error: MESSAGES.keyPrefix })
    .default(DEFAULT_REDIS_KEY_PREFIX),
  command_timeout_ms: int(1, 60_000, MESSAGES.storeTimeout).optional(),
  generation_lease_ms: int(0, MAX_GENERATION_LEASE_MS, MESSAGES.generationLease).optional(),
});

const redisNodesSchema = z
  .array(
    z.string({ error: msg(MESSAGES.redisUrl) }).refine((s) => isUrlWith(s, ["redis:", "rediss:"]) !== undefined, { error: MESSAGES.redisUrl }),
    { error: msg(MESSAGES.redisNodes) },
  )
  .min(1, { error: MESSAGES.redisNodes });

const redisClusterStoreSchema = redisStoreSchema.omit({ type: true, url: true, generation_lease_ms: true }).extend({
  type: z.literal("redis-cluster"),
  nodes: redisNodesSchema,
  replica_ack_timeout_ms: int(1, 60_000, MESSAGES.storeTimeout).optional(),
});

export const storeSchema = nullAsAbsent(
  z
    .discriminatedUnion("type", [sqliteStoreSchema, redisStoreSchema, redisClusterStoreSchema])
    .default({ type: "sqlite", path: DEFAULT_SQLITE_PATH }),
);

const moduleIdKey = z.string().regex(MODULE_ID_RE, { error: MESSAGES.moduleId });

const modulePartyRouteSchema = z.strictObject({
  party: str(PARTY_REF_RE, MESSAGES.partyRef),
  adapter: z.string({ error: msg(MESSAGES.adapterRef) }).min(1, { error: MESSAGES.adapterRef }),
});

export const moduleRouteSchema = z.strictObject({
  adapter: z.string({ error: msg(MESSAGES.adapterRef) }).min(1, { error: MESSAGES.adapterRef }),
  roles: z
    .array(z.enum(INTERFACE_ROLES, { error: msg(MESSAGES.interfaceRole) }))
    .min(1, { error: "must list at least one role (or be left out to serve every role)" })
    .superRefine(uniqueItems("role"))
    .optional(),
  // A plain party is served by `adapter`; `{ party, adapter }` sends that party's part of the module to another adapter.
  parties: z
    .array(z.union([str(PARTY_REF_RE, MESSAGES.partyRef), modulePartyRouteSchema], { error: msg(MESSAGES.modulePartyRoute) }))
    .min(1, { error: "must list at least one party (or be left out to serve all parties)" })
    .superRefine((items, ctx) => uniqueItems("party")(items.map((item) => (typeof item === "string" ? item : item.party)), ctx))
    .optional(),
});

export const partnerSchema = z.strictObject({
  id: str(/^[A-Za-z0-9_.-]{1,64}$/, MESSAGES.partnerId),
  token_a: str(/^[\x21-\x7E]{1,64}$/, MESSAGES.tokenA).optional(),
  versions_url: httpUrl().optional(),
  versions: z
    .array(z.enum(SUPPORTED_VERSIONS, { error: msg(MESSAGES.version) }))
    .min(1, { error: "must list at least one version (or be left out to accept all)" })
    .superRefine(uniqueItems("version"))
    .default([...SUPPORTED_VERSIONS]),
  token_encoding: z.enum(TOKEN_ENCODINGS, { error: msg(MESSAGES.tokenEncoding) }).default("auto"),
  header_prefix: z.enum(HEADER_PREFIXES, { error: msg(MESSAGES.headerPrefix) }).default("OCPI"),
  modules: z.array(str(MODULE_ID_RE, MESSAGES.moduleId)).superRefine(uniqueItems("module")).optional(),
  // extensions of its version the partner speaks: `direct_payment` offers it the payments module in 2.2.1 (core/edge/module-offer.ts)
  extensions: z
    .array(z.enum(PARTNER_EXTENSIONS, { error: msg(oneOf(PARTNER_EXTENSIONS)) }))
    .superRefine(uniqueItems("extension"))
    .optional(),
  roles: z
    .array(
      z.strictObject({
        role: z.enum(ROLES, { error: msg(MESSAGES.role) }),
        party: str(PARTY_REF_RE, MESSAGES.partyRef).optional(),
      }),
    )
    .min(1, { error: "must list at least one role (or be left out: any role but HUB)" })
    .optional(),
  strictness: z.enum(STRICTNESS, { error: msg(MESSAGES.strictness) }).default("reject"),
  send_nulls_for_optional: z.boolean({ error: msg("must be true or false") }).optional(),
  callback_hosts: nullAsAbsent(
    z
      .array(
        z
          .string({ error: msg(MESSAGES.callbackHost) })
          .refine(isCallbackHost, { error: MESSAGES.callbackHost })
          .transform((h) => h.toLowerCase().replace(/\.(?=:\d+$|$)/, "")),
      )
      .default([]),
  ),
  sync: z
    .record(
      moduleIdKey,
      z.string({ error: msg(MESSAGES.cron) }).refine((s) => s.trim() !== "" && validateCron(s), { error: MESSAGES.cron }),
    )
    .optional(),
  sync_overlap_seconds: int(0, 86400, MESSAGES.syncOverlap).optional(),
  sync_retry: z
    .strictObject({
      retries: int(0, 100, MESSAGES.syncRetries).optional(),
      base_delay_ms: int(1, 3_600_000, MESSAGES.syncRetryDelay).optional(),
      max_delay_ms: int(1, 3_600_000, MESSAGES.syncRetryDelay).optional(),
    })
    .optional(),
  max_page_limit: int(1, 10000, MESSAGES.maxPageLimit).optional(),
  // Forwarding (issue #13): whether requests of this partner addressed to another partner's party are forwarded.
  forward: z
    .union([z.boolean(), z.array(str(/^[A-Za-z0-9_.-]{1,64}$/, MESSAGES.partnerId)).superRefine(uniqueItems("partner"))], {
      error: msg("must be true, false or a list of partner ids"),
    })
    .optional(),
  push: z
    .strictObject({
      base_delay_ms: int(1, 86_400_000, MESSAGES.pushDelay).optional(),
      max_delay_ms: int(1, 86_400_000, MESSAGES.pushDelay).optional(),
      backlog_window_ms: int(1, 2_592_000_000, MESSAGES.pushWindow).optional(),
      concurrency: int(1, 256, MESSAGES.pushConcurrency).optional(),
    })
    .optional(),
});

export const cacheSchema = nullAsAbsent(
  z
    .strictObject({
      // Listed modules override the defaults; the others keep theirs.
      ttl_seconds: nullAsAbsent(z.record(moduleIdKey, decimal(0, 86400, MESSAGES.cacheTtl)).optional()).transform((ttl) => ({
        ...DEFAULT_CACHE_TTL_SECONDS,
        ...ttl,
      })),
      max_entries: int(1, 10_000_000, MESSAGES.cacheMaxEntries).default(DEFAULT_CACHE_CONFIG.max_entries),
      redis: bool(MESSAGES.cacheRedis).default(DEFAULT_CACHE_CONFIG.redis),
      redis_url: z
        .string({ error: msg(MESSAGES.redisUrl) })
        .refine((s) => isUrlWith(s, ["redis:", "rediss:"]) !== undefined, { error: MESSAGES.redisUrl })
        .optional(),
      redis_nodes: redisNodesSchema.optional(),
    })
    .refine((cache) => !(cache.redis_url && cache.redis_nodes), {
      path: ["redis_nodes"],
      error: "give either redis_url or redis_nodes, not both",
    })
    .prefault({}),
);

export const gatewayConfigSchema = z
  .strictObject({
    server: serverSchema,
    parties: z.array(partySchema).min(1, { error: "must list at least one party (the platform's own identity)" }),
    store: storeSchema,
    modules: nullAsAbsent(z.record(moduleIdKey, moduleRouteSchema).default({})),
    adapters: nullAsAbsent(
      z
        .record(
          z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, { error: MESSAGES.adapterName }),
          z.preprocess((v) => (v === null ? {} : v), z.record(z.string(), z.unknown(), { error: msg(MESSAGES.adapterSettings) })),
        )
        .default({}),
    ),
    partners: nullAsAbsent(z.array(partnerSchema).default([])),
    cache: cacheSchema,
  })
  // Cross-field rules. `when` makes them run even when other fields failed, so
  // every problem is reported in one go; the value may be partly invalid here.
  .superRefine(crossFieldChecks, { when: () => true });

export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
export type GatewayConfigOutput = z.output<typeof gatewayConfigSchema>;

// Compile-time proof that the schema output is a GatewayConfig. (It is the same
// shape; only logo.category is narrower: the OCPI ImageCategory values.)
const _outputIsGatewayConfig = (c: GatewayConfigOutput): GatewayConfig => c;
void _outputIsGatewayConfig;

// ---------------------------------------------------------------------------
// Cross-field checks
// ---------------------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function crossFieldChecks(value: unknown, ctx: z.RefinementCtx): void {
  if (!isObj(value)) return;
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: "custom", path, message });

  // parties: role + country_code + party_id unique
  const partyRefs = new Set<string>();
  let partiesUsable = Array.isArray(value.parties) && value.parties.length > 0;
  if (Array.isArray(value.parties)) {
    const seen = new Map<string, number>();
    value.parties.forEach((p, i) => {
      const cc = isObj(p) ? p.country_code : undefined;
      const pid = isObj(p) ? p.party_id : undefined;
      const role = isObj(p) ? p.role : undefined;
      if (typeof cc !== "string" || !/^[A-Z]{2}$/.test(cc) || typeof pid !== "string" || !/^[A-Z0-9]{3}$/.test(pid)) {
        partiesUsable = false;
        return;
      }
      partyRefs.add(cc + pid);
      if (typeof role !== "string") return;
      const key = `${role} ${cc} ${pid}`;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, i);
      else
        issue(
          ["parties", i],
          `duplicate party: role ${role} with country_code ${cc} and party_id ${pid} is already declared at parties[${first}]`,
        );
    });
  }

  // modules.*.parties must name configured parties
  if (partiesUsable && isObj(value.modules)) {
    const declared = [...partyRefs].join(", ");
    for (const [moduleId, route] of Object.entries(value.modules)) {
      if (!isObj(route) || !Array.isArray(route.parties)) continue;
      route.parties.forEach((item, i) => {
        const ref = isObj(item) ? item.party : item;
        const path = isObj(item) ? ["modules", moduleId, "parties", i, "party"] : ["modules", moduleId, "parties", i];
        if (typeof ref === "string" && PARTY_REF_RE.test(ref) && !partyRefs.has(ref)) {
          issue(path, `party ${ref} is not declared in parties (declared: ${declared})`);
        }
      });
    }
  }

  // partners: unique ids, and no two partners sharing a token A
  if (Array.isArray(value.partners)) {
    const ids = new Map<string, number>();
    const tokens = new Map<string, number>();
    value.partners.forEach((p, i) => {
      if (!isObj(p)) return;
      if (typeof p.id === "string" && p.id !== "") {
        const first = ids.get(p.id);
        if (first === undefined) ids.set(p.id, i);
        else issue(["partners", i, "id"], `duplicate partner id "${p.id}" (already used by partners[${first}])`);
      }
      if (typeof p.token_a === "string" && /^[\x21-\x7E]{1,64}$/.test(p.token_a)) {
        const first = tokens.get(p.token_a);
        if (first === undefined) tokens.set(p.token_a, i);
        else issue(["partners", i, "token_a"], `same token as partners[${first}].token_a; every partner needs its own token`);
      }
    });
  }
}

// ---------------------------------------------------------------------------
// Issue -> "path: message"
// ---------------------------------------------------------------------------

/** `["partners", 1, "token_a"]` -> `partners[1].token_a`; odd keys are quoted: `adapters["my adapter"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else {
      const s = String(seg);
      if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) out += out === "" ? s : `.${s}`;
      else out += `[${JSON.stringify(s)}]`;
    }
  }
  return out === "" ? "(root)" : out;
}

function typeName(expected: string | undefined): string {
  switch (expected) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "int":
      return "an integer";
    case "boolean":
      return "true or false";
    case "object":
    case "record":
      return "a mapping (key: value pairs)";
    case "array":
    case "tuple":
      return "a list";
    default:
      return expected ? `of type ${expected}` : "of another type";
  }
}

function quoteList(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");
}

/**
 * Per-parse zod error map: human messages for zod's generic issues. Schema-level
 * messages (set above) take precedence. Never mentions the input value.
 */
export function humanIssueMessage(iss: LooseIssue): string | undefined {
  const input = iss.input;
  switch (iss.code) {
    case "invalid_type":
      if (input === undefined) return "is required";
      if (input === null) return "must not be empty";
      if (iss.expected === "string" && (typeof input === "number" || typeof input === "boolean"))
        return "must be a string (put the value in quotes)";
      return typeof input === "string" ? withNotation(`must be ${typeName(iss.expected)}`, iss.expected) : `must be ${typeName(iss.expected)}`;
    case "invalid_value": {
      if (input === undefined) return "is required";
      if (input === null) return "must not be empty";
      const values = (iss.values as unknown[] | undefined) ?? [];
      return values.length === 1 ? `must be ${quoteList(values)}` : `must be one of: ${quoteList(values)}`;
    }
    case "too_small": {
      const min = Number(iss.minimum);
      if (iss.origin === "string") return min <= 1 ? "must not be empty" : `must be at least ${min} characters long`;
      if (iss.origin === "array" || iss.origin === "set") return min <= 1 ? "must not be an empty list" : `must have at least ${min} items`;
      return iss.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case "too_big": {
      const max = Number(iss.maximum);
      if (iss.origin === "string") return `must be at most ${max} characters long`;
      if (iss.origin === "array" || iss.origin === "set") return `must have at most ${max} items`;
      return iss.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case "invalid_format":
      return iss.format === "url" ? "must be a valid URL" : "has an invalid format";
    case "not_multiple_of":
      return `must be a multiple of ${String(iss.divisor)}`;
    case "unrecognized_keys":
      return "unknown key";
    case "invalid_union":
      if (typeof iss.discriminator === "string") {
        const options = (iss.options as unknown[] | undefined) ?? [];
        const present = isObj(input) && input[iss.discriminator] !== undefined;
        return present ? `must be one of: ${quoteList(options)}` : `is required (one of: ${quoteList(options)})`;
      }
      return "does not match any of the allowed forms";
    case "invalid_key":
      return "is not an allowed key";
    default:
      return undefined;
  }
}

// --- unknown-key suggestions -------------------------------------------------

/** The object schema at `path` (following the data through discriminated unions), or undefined. */
function objectSchemaAt(root: AnySchema, path: readonly PropertyKey[], data: unknown): AnySchema | undefined {
  let s = unwrap(root);
  let d: unknown = data;
  const pick = (): boolean => {
    if (s._zod.def.type !== "union") return true;
    const option = discriminatedOption(s, d);
    if (option) s = option;
    return option !== undefined;
  };
  for (const seg of path) {
    if (!pick()) return undefined;
    const def = s._zod.def as unknown as Record<string, unknown> & { type: string };
    if (def.type === "object") {
      const shape = def.shape as Record<string, AnySchema>;
      if (!(String(seg) in shape)) return undefined;
      s = unwrap(shape[String(seg)]);
    } else if (def.type === "array") s = unwrap(def.element as AnySchema);
    else if (def.type === "record") s = unwrap(def.valueType as AnySchema);
    else return undefined;
    d = isObj(d) || Array.isArray(d) ? (d as Record<string, unknown>)[seg as string] : undefined;
  }
  if (!pick()) return undefined;
  return s._zod.def.type === "object" ? s : undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions: "prot" -> "port" is 1). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const dist = k.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key.toLowerCase(), k.toLowerCase());
    if (dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(1, Math.min(3, Math.floor(best.length / 3)))) {
    return `unknown key (did you mean "${best}"?)`;
  }
  return known.length > 0 ? `unknown key (allowed here: ${known.join(", ")})` : "unknown key";
}

// --- entry point ---------------------------------------------------------------

export type ValidationResult = { ok: true; config: GatewayConfig } | { ok: false; errors: string[] };

/** Validates an already interpolated config object; errors are `path: message` lines. */
export function validateConfigObject(input: unknown): ValidationResult {
  if (input === undefined || input === null) return { ok: false, errors: ["(root): the configuration is empty"] };
  if (!isObj(input)) return { ok: false, errors: ["(root): must be a mapping with the sections server, parties, store, modules, adapters, partners"] };
  const result = gatewayConfigSchema.safeParse(readTypedStrings(gatewayConfigSchema, input), { error: humanIssueMessage });
  if (result.success) return { ok: true, config: result.data };
  const errors: string[] = [];
  for (const iss of result.error.issues) {
    if (iss.code === "unrecognized_keys") {
      const objectSchema = objectSchemaAt(gatewayConfigSchema, iss.path, input);
      const known = objectSchema
        ? Object.keys((objectSchema._zod.def as unknown as { shape: Record<string, unknown> }).shape)
        : [];
      for (const key of iss.keys) errors.push(`${formatPath([...iss.path, key])}: ${unknownKeyMessage(key, known)}`);
    } else if (iss.code === "invalid_key") {
      const inner = iss.issues[0]?.message;
      errors.push(`${formatPath(iss.path)}: ${inner ? `key ${inner}` : "is not an allowed key"}`);
    } else {
      errors.push(`${formatPath(iss.path)}: ${iss.message}`);
    }
  }
  return { ok: false, errors: [...new Set(errors)] };
}
