import type { Page, PageRequest } from "../../core/contract/page";
import type { PortContext, PutOutcome } from "../../core/contract/port-context";
import type { PartyRef } from "../../core/protocol/types";
import type { Session } from "../sessions/model";
import type { AccessInformation, Booking, BookingLocation, BookingOption, CanceledReason } from "./model";

/**
 * Ports of the bookings module (OCPI 2.3.0 Bookings extension 1.1).
 *
 * SENDER (we are the CPO): our BookingLocations with their Calendars, and the
 * bookings eMSPs requested. The plugin owns the protocol and the lifecycle
 * (plugins/bookings/lifecycle.ts): it builds each Booking, decides which
 * status change is allowed and when (cancel_until_minutes, noshow_timeout,
 * final states), stores it through `updateBooking` and pushes it to the eMSP.
 * The backend answers availability, holds and frees slots (`reserve`,
 * `rebook`, `release`), keeps the bookings, and reports what happens at the
 * charger through the sink it gets in `connect`. A backend that cannot answer
 * now throws BackendUnavailableError (HTTP 503 + 3000).
 *
 * RECEIVER (we are the eMSP): the BookingLocations and Bookings a CPO
 * partner pushes, kept per CPO party (`owner`).
 */

/** Which available timeslots a request asks for: those overlapping [from, to), epoch ms; each bound optional. */
export interface TimeslotWindow {
  from?: number;
  to?: number;
}

/** A page of BookingLocations: filtered on last_updated like every list, their timeslots on the window. */
export interface BookingLocationsPageRequest extends PageRequest {
  window: TimeslotWindow;
}

/** The backend's answer to a new booking or a change of one. */
export type ReservationAnswer =
  /** the slot is held; the backend may name what it chose (an EVSE, a connector) and how to get in */
  | { status: "RESERVED"; booking_option?: BookingOption; access_information?: AccessInformation[] }
  /** decided later: the backend reports RESERVED, REJECTED or FAILED through the sink */
  | { status: "PENDING" }
  /** the slot cannot be had (taken, outside the calendar) */
  | { status: "REJECTED"; reason: string }
  /** the backend could not act (the charger refused or did not answer) */
  | { status: "FAILED"; reason: string };

/** What the backend learnt about a booking. */
export type BookingEvent =
  /** a PENDING booking was decided */
  | { status: "RESERVED"; booking_option?: BookingOption; access_information?: AccessInformation[] }
  | { status: "REJECTED" | "FAILED"; reason?: string }
  /** a session started on it (e.g. the charger's transaction used the reservation) */
  | { status: "FULFILLED"; session_id?: string }
  /** the CPO canceled it (the charger broke, …) */
  | { status: "CANCELED"; cancellation_reason: CanceledReason }
  | { status: "NO_SHOW" };

/** What the lifecycle made of a reported event. */
export type BookingReport =
  | { outcome: "applied"; booking: Booking }
  | { outcome: "unknown" }
  /** the lifecycle does not allow it (a final state, a change from a state it cannot follow) */
  | { outcome: "refused"; reason: string };

/** Where the backend reports what happens to bookings, at any time and from any gateway instance. */
export interface BookingStatusSink {
  /** applies the event through the lifecycle and pushes the result to the booking's eMSP */
  report(bookingId: string, event: BookingEvent, ctx: PortContext): Promise<BookingReport>;
  /**
   * A session started at one of `ctx.party`'s Locations: the RESERVED booking at that Location whose token it
   * uses and whose period (with early start) it starts in becomes FULFILLED. Undefined when it fulfils none.
   */
  sessionStarted(session: Session, ctx: PortContext): Promise<Booking | undefined>;
}

export interface BookingsSenderPort {
  /** called once before the gateway serves; keep the sink */
  connect(sink: BookingStatusSink): void;
  /**
   * `ctx.party`'s BookingLocations on last_updated (from inclusive, to exclusive), oldest first, each Calendar's
   * `available_timeslots` what is free now within `page.window` (not held by a RESERVED or PENDING booking).
   */
  listLocations(page: BookingLocationsPageRequest, ctx: PortContext): Promise<Page<BookingLocation>>;
  /** one BookingLocation, its calendars' free timeslots within `window`; undefined when unknown (any letter case) */
  getLocation(bookingLocationId: string, window: TimeslotWindow, ctx: PortContext): Promise<BookingLocation | undefined>;
  /**
   * `ctx.party`'s bookings on last_updated, oldest first; when `ctx.scope` is set only those whose eMSP (the
   * requesting party, `bookingOwnerOf`) is `inScope`, and `total` counts only them.
   */
  listBookings(page: PageRequest, ctx: PortContext): Promise<Page<Booking>>;
  /** one of `ctx.party`'s bookings whatever its eMSP (the plugin decides who sees it) */
  getBooking(bookingId: string, ctx: PortContext): Promise<Booking | undefined>;
  /** the booking `requester` made under `requestId` (CiString, any case), whatever its status */
  bookingOfRequest(requester: PartyRef, requestId: string, ctx: PortContext): Promise<Booking | undefined>;
  /** every PENDING or RESERVED booking of `ctx.party`: the plugin's scheduled no-show check reads them */
  openBookings(ctx: PortContext): Promise<Booking[]>;
  /** stores a new booking (the plugin's, status PENDING until `reserve` answered); created or replaced */
  putBooking(booking: Booking, ctx: PortContext): Promise<PutOutcome>;
  /**
   * Replaces the stored booking by `change(current)` in one atomic step; `change` is pure and may run more than
   * once, and may throw (nothing stored). Undefined when there is no such booking.
   */
  updateBooking(bookingId: string, change: (current: Booking) => Booking, ctx: PortContext): Promise<Booking | undefined>;
  /** holds the slot of a new booking (stored, PENDING): its period, location, booking_option */
  reserve(booking: Booking, ctx: PortContext): Promise<ReservationAnswer>;
  /** moves the hold of `current` (RESERVED) to `changed` at once (no PENDING); on REJECTED or FAILED the old hold stays */
  rebook(current: Booking, changed: Booking, ctx: PortContext): Promise<Exclude<ReservationAnswer, { status: "PENDING" }>>;
  /** frees the slot of a booking that ended without a session (canceled, no-show) */
  release(booking: Booking, ctx: PortContext): Promise<void>;
}

/** Our eMSP side: what CPO partners push, per CPO party; ids are CiStrings (store them under `ciKey`). */
export interface BookingsReceiverPort {
  getLocation(owner: PartyRef, bookingLocationId: string, ctx: PortContext): Promise<BookingLocation | undefined>;
  putLocation(owner: PartyRef, location: BookingLocation, ctx: PortContext): Promise<PutOutcome>;
  getBooking(owner: PartyRef, bookingId: string, ctx: PortContext): Promise<Booking | undefined>;
  putBooking(owner: PartyRef, booking: Booking, ctx: PortContext): Promise<PutOutcome>;
}
