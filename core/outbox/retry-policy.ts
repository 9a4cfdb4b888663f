import { PartnerCallError } from "../client/ocpi-client";
import type { RetryPolicy } from "../contract/partner-profile";

/**
 * Whether a failed delivery is worth retrying: network errors, timeouts,
 * HTTP 5xx (and 401/408/429, which pass) and OCPI 3xxx are; a 2xxx
 * rejection is final (the partner will not accept this message, ever), and
 * so is a URL our outbound policy refuses: it stays refused until the
 * operator changes the config, after which a dead letter can be re-sent.
 */
export const isRetryable = (error: unknown): boolean => {
  if (!(error instanceof PartnerCallError)) return true;
  if (error.kind === "refused") return false;
  if (error.kind === "unreachable" || error.kind === "timeout") return true;
  if (error.statusCode !== undefined && error.statusCode >= 3000) return true;
  if (error.statusCode !== undefined && error.statusCode >= 2000) return false;
  const http = error.httpStatus ?? 0;
  return http >= 500 || http === 401 || http === 408 || http === 429 || http === 0;
};

/** Exponential backoff with ±20 % jitter, so instances and partners do not retry in lockstep. */
export const retryDelay = (policy: RetryPolicy, attempts: number): number => {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(attempts, 30));
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
};
