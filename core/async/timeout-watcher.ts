import type { Logger } from "pino";
import { PeriodicService } from "../contract/background";
import type { PendingRequests } from "./pending-requests";
import { storeUnavailableIn } from "../contract/store-unavailable";

const DEFAULT_INTERVAL_MS = 250;

/**
 * Sweeps the pending asynchronous requests on a short interval: the gateway
 * posts TIMEOUT itself when nobody reported an outcome in time, and takes
 * over deliveries an instance died in the middle of. Every instance sweeps;
 * the entries' atomic claim makes one of them act.
 */
export class TimeoutWatcher extends PeriodicService {
  readonly name = "async-timeouts";

  constructor(
    private readonly pending: PendingRequests,
    private readonly log: Logger,
    intervalMs = DEFAULT_INTERVAL_MS,
  ) {
    super(intervalMs);
  }

  protected work(): Promise<void> {
    return (
      this.pending
        .sweep()
        // A store outage is logged once by the store, not at every tick; the next tick after it sweeps again.
        .catch((error) => {
          if (!storeUnavailableIn(error)) this.log.error({ err: error }, "sweep of pending asynchronous requests failed");
        })
    );
  }
}
