import type { Logger } from "pino";
import type { BackgroundService } from "../contract/background";
import type { PendingRequests } from "./pending-requests";
import { storeUnavailableIn } from "../contract/store-unavailable";

const DEFAULT_INTERVAL_MS = 250;

/**
 * Sweeps the pending asynchronous requests on a short interval: the gateway
 * posts TIMEOUT itself when nobody reported an outcome in time, and takes
 * over deliveries an instance died in the middle of. Every instance sweeps;
 * the entries' atomic claim makes one of them act.
 */
export class TimeoutWatcher implements BackgroundService {
  readonly name = "async-timeouts";
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly pending: PendingRequests,
    private readonly log: Logger,
    private readonly intervalMs = DEFAULT_INTERVAL_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.pending
      .sweep()
      // A store outage is logged once by the store, not at every tick; the next tick after it sweeps again.
      .catch((error) => {
        if (!storeUnavailableIn(error)) this.log.error({ err: error }, "sweep of pending asynchronous requests failed");
      })
      .finally(() => (this.running = undefined));
  }
}
