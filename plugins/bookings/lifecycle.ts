import { parseDateTime } from "../../core/protocol/datetime";
import { sameCiString } from "../../core/model/common-schemas";
import type { Session } from "../sessions/model";
import type { Booking, BookingRequest, BookingTerms, ReservationRequestStatus, ReservationStatus } from "./model";

/**
 * The lifecycle of a Booking (OCPI 2.3.0 Bookings, ReservationStatus): the one
 * place that says which status may follow which, and when a change,
 * cancellation, fulfilment or no-show is due. Every status change of a
 * booking, whoever asks for it (the eMSP's request, the backend's report, the
 * scheduled no-show check), is made by `moved` inside the port's atomic
 * `updateBooking`, so two changes racing cannot both apply.
 *
 *   PENDING  → RESERVED | REJECTED | FAILED
 *   RESERVED → FULFILLED | CANCELED | NO_SHOW
 *   CANCELED, NO_SHOW, REJECTED, FAILED, FULFILLED are final.
 */
const NEXT: Readonly<Partial<Record<ReservationStatus, readonly ReservationStatus[]>>> = {
  PENDING: ["RESERVED", "REJECTED", "FAILED"],
  RESERVED: ["FULFILLED", "CANCELED", "NO_SHOW"],
};

export const FINAL_STATUSES: readonly ReservationStatus[] = ["CANCELED", "NO_SHOW", "REJECTED", "FAILED", "FULFILLED"];

export const isFinal = (status: ReservationStatus): boolean => FINAL_STATUSES.includes(status);

export const mayMove = (from: ReservationStatus, to: ReservationStatus): boolean => NEXT[from]?.includes(to) ?? false;

/** A change the lifecycle does not allow: the booking stays as it is. */
export class LifecycleRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LifecycleRefusal";
  }
}

/** The BookingRequestStatus a decided booking gives its pending request. */
const REQUEST_STATUS_OF: Readonly<Partial<Record<ReservationStatus, ReservationRequestStatus>>> = {
  RESERVED: "ACCEPTED",
  REJECTED: "DECLINED",
  FAILED: "FAILED",
};

/**
 * The booking in status `to` at `at`, with `fields` (a cancellation, an EVSE the backend chose); the requests
 * still PENDING take the decision's request status. Throws LifecycleRefusal when `to` may not follow.
 */
export const moved = (booking: Booking, to: ReservationStatus, at: string, fields: Partial<Booking> = {}): Booking => {
  const from = booking.reservation_status;
  if (!mayMove(from, to)) throw new LifecycleRefusal(`a ${from} booking cannot become ${to}${isFinal(from) ? ` (${from} is final)` : ""}`);
  const requestStatus = REQUEST_STATUS_OF[to];
  const booking_requests = requestStatus
    ? booking.booking_requests.map((r) => (r.request_status === "PENDING" ? { ...r, request_status: requestStatus } : r))
    : booking.booking_requests;
  return { ...booking, ...fields, reservation_status: to, booking_requests, last_updated: at };
};

/** The booking with one more request on it and what became of it; the status is left as it is. */
export const withRequest = (booking: Booking, request: BookingRequest, status: ReservationRequestStatus, at: string): Booking => ({
  ...booking,
  booking_requests: [...booking.booking_requests, { request_status: status, booking_request: request, request_received: at }],
  last_updated: at,
});

const MINUTE_MS = 60_000;
const startOf = (booking: Booking): number => parseDateTime(booking.period.start_date_time)!;
const endOf = (booking: Booking): number => parseDateTime(booking.period.end_date_time)!;

/** Why the eMSP may not cancel now, or undefined: a RESERVED booking, until cancel_until_minutes before its start. */
export const cancelRefusal = (booking: Booking, now: number): string | undefined => {
  if (booking.reservation_status !== "RESERVED") return `a ${booking.reservation_status} booking cannot be canceled`;
  const until = startOf(booking) - booking.booking_terms.cancel_until_minutes * MINUTE_MS;
  return now > until ? `cancel_until_minutes (${booking.booking_terms.cancel_until_minutes}) before the start has passed` : undefined;
};

/** Why the eMSP may not change the booking now, or undefined: a RESERVED booking, unless change_not_allowed, until change_until_minutes. */
export const changeRefusal = (booking: Booking, now: number): string | undefined => {
  if (booking.reservation_status !== "RESERVED") return `a ${booking.reservation_status} booking cannot be changed`;
  if (booking.booking_terms.change_not_allowed) return "change_not_allowed: the booking's terms allow no change";
  const until = startOf(booking) - booking.booking_terms.change_until_minutes * MINUTE_MS;
  return now > until ? `change_until_minutes (${booking.booking_terms.change_until_minutes}) before the start has passed` : undefined;
};

/**
 * A RESERVED booking nobody came for: no session started by noshow_timeout minutes after its start, or, without
 * a noshow_timeout, by the end of its period.
 */
export const noShowDue = (booking: Booking, now: number): boolean => booking.reservation_status === "RESERVED" && now >= noShowAt(booking);

/** When a booking nobody came for becomes a no-show, epoch ms: noshow_timeout minutes after its start, else its end. */
export const noShowAt = (booking: Booking): number => {
  const timeout = booking.booking_terms.noshow_timeout;
  return timeout === undefined ? endOf(booking) : startOf(booking) + timeout * MINUTE_MS;
};

/** When a session may start on the booking: from its start (early_start_time minutes before when early_start_allowed) to its end. */
const startWindow = (booking: Booking): [number, number] => {
  const terms: BookingTerms = booking.booking_terms;
  const early = terms.early_start_allowed ? (terms.early_start_time ?? 0) * MINUTE_MS : 0;
  return [startOf(booking) - early, endOf(booking)];
};

/**
 * Whether `session` fulfils the RESERVED `booking`: it started at the booking's Location (and EVSE, when one was
 * booked) with one of the booking's tokens, within its start window.
 */
export const fulfils = (session: Session, booking: Booking): boolean => {
  if (booking.reservation_status !== "RESERVED" || !sameCiString(session.location_id, booking.location_id)) return false;
  const evse = booking.booking_option?.evse_uid;
  if (evse && evse !== "#NA" && !sameCiString(evse, session.evse_uid)) return false;
  const token = session.cdr_token;
  const tokenOfBooking = (booking.booking_tokens ?? []).some(
    (t) => sameCiString(t.uid, token.uid) && t.type === token.type && sameCiString(t.country_code, token.country_code) && sameCiString(t.party_id, token.party_id),
  );
  const started = parseDateTime(session.start_date_time);
  const [from, to] = startWindow(booking);
  return tokenOfBooking && started !== undefined && started >= from && started < to;
};
