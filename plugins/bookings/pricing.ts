import type { ReservationTimeline } from "../tariffs/engine/types";
import type { Booking } from "./model";
import { noShowAt } from "./lifecycle";

/**
 * A booking as the tariff engine prices it (`priceSession`'s `reservation`, elements with a `booking`
 * restriction): from when it was requested to the start of the session that fulfilled it, or, for a booking
 * nobody came for, to the moment it became a no-show (then BOOKING_EXPIRES elements apply first).
 */
export const bookingTimeline = (booking: Booking, sessionStart?: string): ReservationTimeline => ({
  start: booking.booking_requests[0].request_received,
  end: sessionStart ?? new Date(noShowAt(booking)).toISOString().replace(/\.\d{3}Z$/, "Z"),
  expired: sessionStart === undefined,
  booking: true,
});
