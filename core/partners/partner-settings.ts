import type { GatewayConfig, PartnerConfig, PartnerPushConfig, PartnerSyncRetryConfig } from "../../config/types";
import { SUPPORTED_VERSIONS } from "../protocol/vocabulary";
import type { ForwardRights, RetryPolicy } from "../contract/partner-profile";

/**
 * The defaults a partner's YAML entry (`partners[]`) falls back on, and the rules turning the entry into the
 * partner's settings (core/partners/partner-profile.ts): in one place, below every service that reads them.
 */

/** The YAML entry of a partner that was added with `partners add` and has none in the YAML. */
export const defaultPartnerConfig = (id: string): PartnerConfig => ({
  id,
  versions: [...SUPPORTED_VERSIONS],
  token_encoding: "auto",
  header_prefix: "OCPI",
  strictness: "reject",
  callback_hosts: [],
});

/** `partners[].sync_overlap_seconds` unless set. */
export const DEFAULT_SYNC_OVERLAP_SECONDS = 60;

export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseDelayMs: 1000, maxDelayMs: 5 * 60_000, backlogWindowMs: 60 * 60_000 };

/** A partner's policy: its `partners[].push` settings over the defaults. */
export const retryPolicyOf = (settings: PartnerPushConfig = {}): RetryPolicy => ({
  baseDelayMs: settings.base_delay_ms ?? DEFAULT_RETRY_POLICY.baseDelayMs,
  maxDelayMs: settings.max_delay_ms ?? DEFAULT_RETRY_POLICY.maxDelayMs,
  backlogWindowMs: settings.backlog_window_ms ?? DEFAULT_RETRY_POLICY.backlogWindowMs,
});

/** Deliveries to one partner under way at once, unless its `partners[].push.concurrency` says otherwise. */
export const DEFAULT_PUSH_CONCURRENCY = 16;

/** Defaults of `partners[].sync_retry`: four retries per pull, 250 ms doubling (±20 %), no wait over 30 s. */
export const DEFAULT_SYNC_RETRY: Required<PartnerSyncRetryConfig> = { retries: 4, base_delay_ms: 250, max_delay_ms: 30_000 };

/** A hub by our own settings (`server.hub`, `server.hub_party_id`, a party with role HUB), whatever the partners' `forward`. */
export const hubByOwnSettings = (config: GatewayConfig): boolean =>
  config.server.hub !== undefined || config.server.hub_party_id !== undefined || config.parties.some((p) => p.role === "HUB");

/**
 * A partner's forward rights (the partner profile's `forward`, core/partners/partner-profile.ts):
 * `partners[].forward` (true, false or the receivers' ids); unset, true when the gateway is a hub by its
 * parties or `server.hub`.
 */
export const forwardRightsOf = (config: GatewayConfig, partner: PartnerConfig): ForwardRights => partner.forward ?? hubByOwnSettings(config);

