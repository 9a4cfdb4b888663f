/** The `server` section: where the gateway listens, its limits and timings, and the hub's watch of partners. */
import { z } from "zod";
import { DEFAULT_COMMAND_TIMEOUT_SECONDS, DEFAULT_HEAP_GROWTH_PERCENT, DEFAULT_INBOUND } from "../types";
import { LOG_LEVELS, MESSAGES } from "../schema-messages";
import { int, isUrlWith, msg, nullAsAbsent, PARTY_REF_RE, str } from "./blocks";

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
    // which bodies are heavy, and how the heavy lane takes them (core/http/heavy-lane.ts)
    heavy_body_bytes: int(1, 1_073_741_824, MESSAGES.inboundBodyBytesAny).default(DEFAULT_INBOUND.heavy_body_bytes),
    heavy_body_members: int(1, 100_000_000, MESSAGES.inboundBodyCount).default(DEFAULT_INBOUND.heavy_body_members),
    heavy_body_layouts: int(1, 100_000_000, MESSAGES.inboundBodyCount).default(DEFAULT_INBOUND.heavy_body_layouts),
    heavy_body_share: z
      .number({ error: msg(MESSAGES.inboundHeavyShare) })
      .gt(0, { error: MESSAGES.inboundHeavyShare })
      .max(1, { error: MESSAGES.inboundHeavyShare })
      .default(DEFAULT_INBOUND.heavy_body_share),
    heavy_body_queue: int(1, 1000, MESSAGES.inboundHeavyQueue).default(DEFAULT_INBOUND.heavy_body_queue),
    heavy_body_max_wait_ms: int(0, 600_000, MESSAGES.inboundHeavyWait).default(DEFAULT_INBOUND.heavy_body_max_wait_ms),
    // when a weighty body's pieces run (core/http/weighty-turns.ts)
    weighty_body_share: z
      .number({ error: msg(MESSAGES.inboundWeightyShare) })
      .gt(0, { error: MESSAGES.inboundWeightyShare })
      .max(1, { error: MESSAGES.inboundWeightyShare })
      .default(DEFAULT_INBOUND.weighty_body_share),
    refusals_per_second: int(1, 100_000, MESSAGES.inboundRefusals).default(DEFAULT_INBOUND.refusals_per_second),
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
  // the bookings module's no-show check (plugins/bookings/noshow-check.ts); absent: every 60 s
  booking_check_interval_ms: int(50, 86_400_000, "must be a whole number of milliseconds between 50 and 86400000").optional(),
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
