import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { ChangeFeed } from "../../core/contract/change-feed";
import type { PortContext } from "../../core/contract/port-context";
import { invalid } from "../../core/contract/errors";
import { ocpiTimestamp } from "../../core/http/envelope";
import { sameCiString } from "../../core/model/common-schemas";
import type { Session } from "../sessions/model";
import type { Booking, BookingRequest, BookingTerms, CanceledReason, ReservationRequestStatus } from "./model";
import type { BookingEvent, BookingReport, BookingStatusSink, BookingsSenderPort, ReservationAnswer } from "./ports";
import { LifecycleRefusal, cancelRefusal, changeRefusal, fulfils, moved, noShowDue, withRequest } from "./lifecycle";
import { bookingChange } from "./push";
import type { RequestLocks } from "./request-locks";

/** The terms of a BookingLocation that states none: no access method beyond the token, no change or cancel window. */
const NO_TERMS: BookingTerms = { supported_access_methods: ["TOKEN"], change_until_minutes: 0, cancel_until_minutes: 0 };

/** What a decided answer adds to the booking: what the backend chose. */
const chosen = (answer: ReservationAnswer | BookingEvent): Partial<Booking> => {
  if (answer.status !== "RESERVED") return {};
  const fields: Partial<Booking> = {};
  if (answer.booking_option) fields.booking_option = answer.booking_option;
  if (answer.access_information) fields.access_information = answer.access_information;
  return fields;
};

/**
 * Our CPO side of bookings: every eMSP request and every backend report
 * passes here and through the lifecycle (lifecycle.ts), is stored through the
 * port's atomic `updateBooking`, and each stored change is published on the
 * change feed, which pushes it to the booking's eMSP (push.ts). It is the
 * sink the backend reports to (BookingStatusSink).
 */
export class BookingDesk implements BookingStatusSink {
  constructor(
    private readonly port: BookingsSenderPort,
    private readonly changes: ChangeFeed,
    private readonly log: Logger,
    private readonly locks: RequestLocks,
    private readonly now: () => number = Date.now,
  ) {}

  private stamp(): string {
    return ocpiTimestamp(new Date(this.now()));
  }

  /**
   * An eMSP's POST: a new booking, or, under a request_id the requester used before, a change or (with
   * `canceled`) a cancellation of that booking. Answers the booking as it is afterwards; a change or
   * cancellation the lifecycle refuses is recorded on it as DECLINED and leaves it as it was.
   */
  async take(request: BookingRequest, ctx: PortContext): Promise<Booking> {
    // one request_id of one requester at a time, on every instance: a POST and its retry arriving together
    // must not both find no booking under it and book twice (the lock is the store's, shared by instances)
    return this.locks.serialized(`bookings:request:${request.country_code}:${request.party_id}:${request.request_id}`.toUpperCase(), () => this.takeAlone(request, ctx));
  }

  private async takeAlone(request: BookingRequest, ctx: PortContext): Promise<Booking> {
    const requester = { country_code: request.country_code, party_id: request.party_id };
    const current = await this.port.bookingOfRequest(requester, request.request_id, ctx);
    if (!current) {
      if (request.canceled) throw invalid(`/request_id: no booking under request_id ${request.request_id} to cancel`);
      return this.book(request, ctx);
    }
    if (!sameCiString(current.location_id, request.location_id)) throw invalid(`/location_id: the booking of request ${request.request_id} is at Location ${current.location_id}`);
    const bookedAt = current.booking_requests[0].booking_request.booking_location_id;
    if (!sameCiString(bookedAt, request.booking_location_id))
      throw invalid(`/booking_location_id: the booking of request ${request.request_id} is at BookingLocation ${bookedAt}`);
    return request.canceled ? this.cancelForEmsp(current, request, ctx) : this.change(current, request, ctx);
  }

  private async book(request: BookingRequest, ctx: PortContext): Promise<Booking> {
    const location = await this.port.getLocation(request.booking_location_id, {}, ctx);
    if (!location) throw invalid(`/booking_location_id: no BookingLocation ${request.booking_location_id}`);
    if (!sameCiString(location.location_id, request.location_id))
      throw invalid(`/location_id: BookingLocation ${location.id} is at Location ${location.location_id}, not ${request.location_id}`);
    const at = this.stamp();
    const draft: Booking = {
      id: randomUUID(),
      country_code: ctx.party.country_code,
      party_id: ctx.party.party_id,
      request_id: request.request_id,
      ...(request.booking_option ? { booking_option: request.booking_option } : {}),
      location_id: location.location_id,
      booking_tokens: request.tokens ?? [],
      ...(location.tariff_ids ? { tariff_ids: location.tariff_ids } : {}),
      period: { start_date_time: request.period.start_date_time, end_date_time: request.period.end_date_time },
      reservation_status: "PENDING",
      ...(request.access_information ? { access_information: request.access_information } : {}),
      authorization_reference: request.authorization_reference,
      booking_terms: location.booking_terms ?? NO_TERMS,
      booking_requests: [{ request_status: "PENDING", booking_request: request, request_received: at }],
      last_updated: at,
    };
    await this.port.putBooking(draft, ctx);
    const answer = await this.reserved(draft, ctx);
    if (answer.status === "PENDING") return this.published(draft);
    const decided = await this.port.updateBooking(draft.id, (b) => moved(b, answer.status, this.stamp(), chosen(answer)), ctx);
    if (answer.status !== "RESERVED") this.log.info({ booking: draft.id, reason: answer.reason }, `booking ${answer.status}`);
    return this.published(decided!);
  }

  /** The backend's answer; a backend that fails to answer leaves the booking FAILED, not PENDING for ever. */
  private async reserved(draft: Booking, ctx: PortContext): Promise<ReservationAnswer> {
    try {
      return await this.port.reserve(draft, ctx);
    } catch (error) {
      this.log.warn({ err: error, booking: draft.id }, "the backend could not hold the booking's slot");
      return { status: "FAILED", reason: (error as Error).message };
    }
  }

  private async change(current: Booking, request: BookingRequest, ctx: PortContext): Promise<Booking> {
    const refusal = changeRefusal(current, this.now());
    if (refusal) return this.declined(current, request, refusal, ctx);
    const changed: Booking = {
      ...current,
      period: { start_date_time: request.period.start_date_time, end_date_time: request.period.end_date_time },
      booking_option: request.booking_option ?? current.booking_option,
      booking_tokens: request.tokens ?? current.booking_tokens,
      access_information: request.access_information ?? current.access_information,
      authorization_reference: request.authorization_reference,
    };
    const answer = await this.port.rebook(current, changed, ctx);
    if (answer.status !== "RESERVED") return this.recorded(current.id, request, answer.status === "REJECTED" ? "DECLINED" : "FAILED", ctx);
    return this.settled(current.id, ctx, (b) => {
      if (b.reservation_status !== "RESERVED") throw new LifecycleRefusal(`a ${b.reservation_status} booking cannot be changed`);
      return withRequest({ ...changed, ...chosen(answer), booking_requests: b.booking_requests }, request, "ACCEPTED", this.stamp());
    });
  }

  private async cancelForEmsp(current: Booking, request: BookingRequest, ctx: PortContext): Promise<Booking> {
    const refusal = cancelRefusal(current, this.now());
    if (refusal) return this.declined(current, request, refusal, ctx);
    const canceled = await this.settled(current.id, ctx, (b) =>
      withRequest(moved(b, "CANCELED", this.stamp(), { canceled: { ...request.canceled!, who_canceled: "EMSP" } }), request, "ACCEPTED", this.stamp()),
    );
    if (canceled.reservation_status === "CANCELED") await this.port.release(canceled, ctx);
    return canceled;
  }

  /** Our CPO cancels a RESERVED booking (the admin API): at any time before it ends, unlike the eMSP. */
  async cancelForCpo(bookingId: string, reason: CanceledReason, ctx: PortContext): Promise<BookingReport> {
    const report = await this.report(bookingId, { status: "CANCELED", cancellation_reason: reason }, ctx);
    if (report.outcome === "applied") await this.port.release(report.booking, ctx);
    return report;
  }

  /** The request recorded with the booking as DECLINED: why is logged, the booking's status stays. */
  private declined(current: Booking, request: BookingRequest, reason: string, ctx: PortContext): Promise<Booking> {
    this.log.info({ booking: current.id, reason }, "booking request declined");
    return this.recorded(current.id, request, "DECLINED", ctx);
  }

  private recorded(bookingId: string, request: BookingRequest, status: ReservationRequestStatus, ctx: PortContext): Promise<Booking> {
    return this.settled(bookingId, ctx, (b) => withRequest(b, request, status, this.stamp()));
  }

  /** `change` stored atomically and published; a refusal met inside it (a race) leaves the booking as stored. */
  private async settled(bookingId: string, ctx: PortContext, change: (b: Booking) => Booking): Promise<Booking> {
    try {
      const updated = await this.port.updateBooking(bookingId, change, ctx);
      if (!updated) throw invalid(`/request_id: booking ${bookingId} is gone`);
      return await this.published(updated);
    } catch (error) {
      if (!(error instanceof LifecycleRefusal)) throw error;
      this.log.info({ booking: bookingId, reason: error.message }, "booking change refused");
      return (await this.port.getBooking(bookingId, ctx))!;
    }
  }

  /** Published on the change feed: pushed to the booking's eMSP (push.ts), cached lists invalidated. */
  private async published(booking: Booking): Promise<Booking> {
    await this.changes.publish(bookingChange(booking));
    return booking;
  }

  async report(bookingId: string, event: BookingEvent, ctx: PortContext): Promise<BookingReport> {
    const fields: Partial<Booking> =
      event.status === "CANCELED" ? { canceled: { cancellation_reason: event.cancellation_reason, who_canceled: "CPO" } } : chosen(event);
    try {
      const updated = await this.port.updateBooking(bookingId, (b) => moved(b, event.status, this.stamp(), fields), ctx);
      if (!updated) return { outcome: "unknown" };
      return { outcome: "applied", booking: await this.published(updated) };
    } catch (error) {
      if (error instanceof LifecycleRefusal) return { outcome: "refused", reason: error.message };
      throw error;
    }
  }

  async sessionStarted(session: Session, ctx: PortContext): Promise<Booking | undefined> {
    const booking = (await this.port.openBookings(ctx)).find((b) => fulfils(session, b));
    if (!booking) return undefined;
    const report = await this.report(booking.id, { status: "FULFILLED", session_id: session.id }, ctx);
    return report.outcome === "applied" ? report.booking : undefined;
  }

  /** The scheduled check: every RESERVED booking of `ctx.party` nobody came for becomes NO_SHOW, and its slot is freed. */
  async checkNoShows(ctx: PortContext): Promise<Booking[]> {
    const now = this.now();
    const due = (await this.port.openBookings(ctx)).filter((b) => noShowDue(b, now));
    const done: Booking[] = [];
    for (const booking of due) {
      const report = await this.report(booking.id, { status: "NO_SHOW" }, ctx);
      if (report.outcome !== "applied") continue;
      await this.port.release(report.booking, ctx);
      done.push(report.booking);
    }
    return done;
  }
}
