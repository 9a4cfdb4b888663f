import type { Logger } from "pino";
import { PeriodicService } from "../../core/contract/background";
import type { PartyRef } from "../../core/protocol/types";
import { storeUnavailableIn } from "../../core/contract/store-unavailable";
import type { BookingDesk } from "./booking-desk";

/** How often RESERVED bookings are checked for a no-show, by default (`server.booking_check_interval_ms`). */
export const DEFAULT_BOOKING_CHECK_INTERVAL_MS = 60_000;

/**
 * The scheduled no-show check (a background service, run while the gateway serves): every interval, each of
 * our CPO parties' RESERVED bookings whose noshow_timeout passed without a session becomes NO_SHOW
 * (BookingDesk.checkNoShows; lifecycle.ts `noShowDue`). Every instance checks; the lifecycle's atomic
 * update lets one of them move each booking, and only that one pushes it. A check still running when the
 * next is due is not doubled.
 */
export class NoShowCheck extends PeriodicService {
  readonly name = "bookings-noshow";

  constructor(
    private readonly desk: BookingDesk,
    private readonly parties: readonly PartyRef[],
    private readonly log: Logger,
    intervalMs = DEFAULT_BOOKING_CHECK_INTERVAL_MS,
  ) {
    super(intervalMs);
  }

  protected async work(): Promise<void> {
    for (const party of this.parties) {
      try {
        const done = await this.desk.checkNoShows({ party });
        for (const booking of done) this.log.info({ booking: booking.id }, "booking NO_SHOW: no session by its noshow_timeout");
      } catch (error) {
        // a store outage is logged once by the store; the next tick checks again
        if (!storeUnavailableIn(error)) this.log.error({ err: error }, "bookings: the no-show check failed");
      }
    }
  }
}
