import type { Logger } from "pino";

/**
 * The state store cannot serve the operation now (connection lost, command
 * timed out, cluster failing over, file locked or full). Nothing about the
 * request is wrong: it may succeed when retried later. The message names the
 * store kind only; the cause stays in `reason` for the log (it never carries
 * credentials: neither ioredis nor libsql put them in error messages).
 */
export class StoreUnavailableError extends Error {
  constructor(
    readonly store: "sqlite" | "redis",
    readonly reason: string,
  ) {
    super(`State store unavailable (${store}); retry later`);
    this.name = "StoreUnavailableError";
  }
}

/**
 * The StoreUnavailableError behind an error, if any: callers may wrap what the
 * store threw (`cause`), or gather several failures (an AggregateError, e.g. of change listeners).
 */
export const storeUnavailableIn = (error: unknown, depth = 0): StoreUnavailableError | undefined => {
  if (!(error instanceof Error) || depth > 10) return undefined;
  if (error instanceof StoreUnavailableError) return error;
  const inner = error instanceof AggregateError ? [...error.errors, error.cause] : [error.cause];
  for (const e of inner) {
    const found = storeUnavailableIn(e, depth + 1);
    if (found) return found;
  }
  return undefined;
};

/** How long the store must go without a failure before a success counts as recovery: a half-failed cluster does not flap. */
const QUIET_MS = 1000;

/**
 * Logs a store outage once when it starts (warn) and once when it is over
 * (info), however many requests fail in between.
 */
export class StoreHealth {
  private down = false;
  private lastFailureAt = 0;

  constructor(
    private readonly store: "sqlite" | "redis",
    private readonly log?: Logger,
  ) {}

  get available(): boolean {
    return !this.down;
  }

  failed(reason: string): void {
    this.lastFailureAt = Date.now();
    if (this.down) return;
    this.down = true;
    this.log?.warn({ store: this.store, reason }, "state store unavailable; answering 503 until it is back");
  }

  /** A success; `connected` (the connection is ready again) ends the outage without waiting for the quiet period. */
  succeeded(connected = false): void {
    if (!this.down) return;
    if (!connected && Date.now() - this.lastFailureAt < QUIET_MS) return;
    this.down = false;
    this.log?.info({ store: this.store }, "state store is back");
  }
}
