/**
 * The messages of the config schema (config/schema.ts): the value lists it
 * accepts and one message per kind of value. Exported so other modules and the
 * tests can refer to them.
 *
 * Rules for messages: they say what is expected, never echo the offending
 * value (it may be a token, a password or a URL with credentials).
 */
import { INTERFACE_ROLES, ROLES, SUPPORTED_VERSIONS } from "../core/protocol/vocabulary";
import { MAX_GENERATION_LEASE_MS } from "./types";

export const TOKEN_ENCODINGS = ["base64", "raw", "auto"] as const;
export const HEADER_PREFIXES = ["OCPI", "ROAMING"] as const;
export const STRICTNESS = ["reject", "log", "repair"] as const;
export const PARTNER_EXTENSIONS = ["direct_payment"] as const;
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export const IMAGE_CATEGORIES = ["CHARGER", "ENTRANCE", "LOCATION", "NETWORK", "OPERATOR", "OTHER", "OWNER"] as const;

export const oneOf = (values: readonly string[]): string => `must be one of: ${values.join(", ")}`;

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
  inboundBodyBytesAny: "must be an integer between 1 and 1073741824 (bytes)",
  inboundHeavyShare: "must be a number above 0 and at most 1 (a share of the gateway's time, e.g. 0.01)",
  inboundHeavyQueue: "must be an integer between 1 and 1000",
  inboundHeavyWait: "must be a whole number of milliseconds between 0 and 600000",
  inboundWeightyShare: "must be a number above 0 and at most 1 (a share of the event loop, e.g. 0.5)",
  inboundRefusals: "must be an integer between 1 and 100000 (refusals a second per client address)",
} as const;

/** The fields of a zod issue the messages look at (zod's issue types differ per code). */
export interface LooseIssue {
  code?: string;
  input?: unknown;
  expected?: string;
  [k: string]: unknown;
}

/** A string where a number was expected did not read as one (config/typed-strings.ts): say how a number is written. */
export const withNotation = (text: string, expected: string | undefined): string =>
  expected === "number" || expected === "int" ? `${text}, in decimal digits` : text;
