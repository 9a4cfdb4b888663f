import type { PartnerSyncRetryConfig } from "../../config/types";
import { PartnerCallError } from "../client/ocpi-client";
import { retryDelay } from "../outbox/retry-policy";
import { DEFAULT_RETRY_POLICY, DEFAULT_SYNC_RETRY } from "../partners/partner-settings";


/** One retry of a page, for the pull's log. */
export interface PageRetryEvent {
  /** retries of this pull so far, this one included */
  retry: number;
  waitMs: number;
  /** what failed (the call error's message: no query string, no token) */
  reason: string;
}

/**
 * The retry budget of one sync pull. A page whose fetch fails in a way that
 * may pass (network error, timeout, HTTP 408, 429 or 5xx) is fetched again
 * after an exponential backoff with jitter, or after the partner's
 * `Retry-After` (seconds or an HTTP date, RFC 9110 §10.2.3), each wait capped
 * at `max_delay_ms`. The budget is per pull, across its pages: a partner
 * failing for good fails the pull after `retries` retries, and the watermark
 * stays (core/sync/sync-puller.ts). Any other answer (a 4xx, an OCPI error in
 * a 2xx, a malformed body) fails it at once.
 */
export class PageRetry {
  private readonly settings: Required<PartnerSyncRetryConfig>;
  /** retries used so far */
  used = 0;

  constructor(
    settings: PartnerSyncRetryConfig | undefined,
    private readonly signal: AbortSignal | undefined,
    private readonly onRetry: (event: PageRetryEvent) => void,
  ) {
    this.settings = { ...DEFAULT_SYNC_RETRY, ...settings };
  }

  /** Fetches through `fetch`, again while the failure may pass and the budget lasts. */
  async run<R>(fetch: () => Promise<R>): Promise<R> {
    for (let failures = 0; ; failures++) {
      try {
        return await fetch();
      } catch (error) {
        // Out of budget, the last failure fails the pull; its log line counts the retries spent.
        if (!isPassing(error) || this.used >= this.settings.retries) throw error;
        const waitMs = this.waitFor(error, failures);
        this.used++;
        this.onRetry({ retry: this.used, waitMs, reason: error.message });
        await pause(waitMs, this.signal);
      }
    }
  }

  private waitFor(error: PartnerCallError, failures: number): number {
    const asked = retryAfterMs(error.retryAfter);
    if (asked !== undefined) return Math.min(asked, this.settings.max_delay_ms);
    return retryDelay({ ...DEFAULT_RETRY_POLICY, baseDelayMs: this.settings.base_delay_ms, maxDelayMs: this.settings.max_delay_ms }, failures);
  }
}

const isPassing = (error: unknown): error is PartnerCallError => {
  if (!(error instanceof PartnerCallError)) return false;
  if (error.kind === "unreachable" || error.kind === "timeout") return true;
  const status = error.httpStatus ?? 0;
  return status === 408 || status === 429 || status >= 500;
};

/** `Retry-After` as a wait in ms: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export const retryAfterMs = (value: string | undefined, now = Date.now()): number | undefined => {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/** Waits `ms`, or rejects as soon as `signal` aborts (the gateway stopping). */
const pause = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("the gateway is stopping"));
    const stop = () => {
      clearTimeout(timer);
      reject(new Error("the gateway is stopping"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
