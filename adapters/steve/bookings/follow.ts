import { ciKey, parseDateTime, type Booking, type BookingEvent, type BookingStatusSink, type CanceledReason, type PartyRef, type Session, type Token } from "../../kit";
import { getJson, setJson, type KeyValue, type SteveLog } from "../contracts";
import type { TransactionRow } from "../db/rows";
import type { SteveDb } from "../db/steve-db";
import { resultOf } from "../rest/results";
import type { SteveRest } from "../rest/client";
import type { SteveBookingSettings } from "../settings";
import type { SteveTags } from "../tags";
import type { BookingBook } from "./book";
import { steveEvseOf } from "./availability";

const MINUTE_MS = 60_000;
/** the booking a transaction fulfilled: its CDR carries booking_id and is priced with the booking's tariffs */
const transactionKey = (transactionPk: number) => `steve:booking:transaction:${transactionPk}`;

/** What a transaction's CDR takes from the booking it fulfilled. */
export interface FulfilledBooking {
  id: string;
  tariff_ids: string[];
  /** the booked period's start: the booking fee is priced from it to the session's start */
  start: string;
}

/** A ReserveNow answer that is the station's refusal → why the CPO cancels the booking (OCPI CanceledReason). */
const REFUSALS: Record<string, CanceledReason> = {
  EVSE_OCCUPIED: "BLOCKED",
  EVSE_INOPERATIVE: "BROKEN_CHARGER",
  REJECTED: "UNKNOWN",
  NOT_SUPPORTED: "UNKNOWN",
  FAILED: "UNKNOWN",
};

export interface BookingFollowerOptions {
  book: BookingBook;
  db: SteveDb;
  rest: SteveRest;
  tags: SteveTags;
  kv: KeyValue;
  log: SteveLog;
  owner: PartyRef;
  settings: SteveBookingSettings;
  /** the plugin's sink, once connected */
  sink: () => BookingStatusSink | undefined;
}

/** A booking's token as tags.ts provisions it: a token the eMSP pushed is found as it was pushed. */
export const tokenOfBooking = (booking: Booking): Token | undefined => {
  const token = booking.booking_tokens?.[0];
  return token && ({ ...token, valid: true, whitelist: "ALLOWED", last_updated: booking.last_updated } as Token);
};

/**
 * Bookings at the charger, at every poll (docs/steve.md, "Bookings"): a RESERVED booking becomes a SteVe
 * reservation (ReserveNow, the EVSE for the booking's first token until the period's end) once
 * `reserve_ahead_minutes` before its start has come, but not before the previous booking of that EVSE ended;
 * the station refusing cancels the booking (CPO), SteVe failing or not answering is retried at the next poll.
 * A reservation a transaction used (SteVe: status USED, transaction_pk) makes the booking FULFILLED; one
 * cancelled or deleted in SteVe (not by the gateway) makes it CANCELED by the CPO.
 */
export class BookingFollower {
  /** bookings whose ReserveNow is running (SteVe holds the call until the station answers) */
  private readonly reserving = new Set<string>();

  constructor(private readonly o: BookingFollowerOptions) {}

  private ctx = () => ({ party: this.o.owner });

  async poll(now: Date): Promise<void> {
    const sink = this.o.sink();
    if (!sink) return;
    const open = (await this.o.book.openBookings(this.o.owner)).filter((b) => b.reservation_status === "RESERVED");
    const linked: { booking: Booking; reservationPk: number }[] = [];
    for (const booking of open) {
      const link = await this.o.book.reservation(booking.id);
      if (link) linked.push({ booking, reservationPk: link.reservationPk });
      else if (!this.reserving.has(booking.id) && (await this.due(booking, now))) this.startReserving(booking, sink);
    }
    const rows = new Map((await this.o.db.reservationsByPk(linked.map((l) => l.reservationPk))).map((r) => [r.reservationPk, r]));
    for (const { booking, reservationPk } of linked) {
      const row = rows.get(reservationPk);
      if (row?.status === "USED" && row.transactionPk !== null) {
        await this.fulfilled(booking, row.transactionPk);
        await this.report(sink, booking, { status: "FULFILLED", session_id: String(row.transactionPk) });
      } else if (!row || row.status === "CANCELLED") {
        await this.o.book.dropReservation(booking.id);
        await this.report(sink, booking, { status: "CANCELED", cancellation_reason: "UNKNOWN" });
      }
    }
  }

  /** The new Session of a transaction: a booking it fulfils (the plugin's rule) is remembered for its CDR. */
  async sessionStarted(tx: TransactionRow, session: Session): Promise<void> {
    const fulfilled = await this.o.sink()?.sessionStarted(session, this.ctx());
    if (fulfilled) await this.fulfilled(fulfilled, tx.transactionPk);
  }

  bookingOf(tx: TransactionRow): Promise<FulfilledBooking | undefined> {
    return getJson<FulfilledBooking>(this.o.kv, transactionKey(tx.transactionPk));
  }

  private fulfilled(booking: Booking, transactionPk: number): Promise<void> {
    const link: FulfilledBooking = { id: booking.id, tariff_ids: booking.tariff_ids ?? [], start: booking.period.start_date_time };
    return setJson(this.o.kv, transactionKey(transactionPk), link);
  }

  /** Time to reserve: reserve_ahead_minutes before the start, and the EVSE's previous booking over. */
  private async due(booking: Booking, now: Date): Promise<boolean> {
    const start = parseDateTime(booking.period.start_date_time)!;
    const end = parseDateTime(booking.period.end_date_time)!;
    const uid = booking.booking_option?.evse_uid;
    if (!uid || now.getTime() >= end || now.getTime() < start - this.o.settings.reserve_ahead_minutes * MINUTE_MS) return false;
    const before = (await this.o.book.holds(uid)).filter((h) => h.to <= start && h.booking !== ciKey(booking.id));
    return before.every((h) => h.to <= now.getTime());
  }

  private startReserving(booking: Booking, sink: BookingStatusSink): void {
    this.reserving.add(booking.id);
    void this.reserveNow(booking, sink)
      .catch((error: unknown) => this.o.log.warn({ booking: booking.id, reason: (error as Error).message }, "steve: booking not reserved in SteVe yet; retried at the next poll"))
      .finally(() => this.reserving.delete(booking.id));
  }

  private async reserveNow(booking: Booking, sink: BookingStatusSink): Promise<void> {
    const uid = booking.booking_option!.evse_uid!;
    const evse = steveEvseOf(uid);
    const token = tokenOfBooking(booking);
    if (!evse || !token) return;
    const tag = await this.o.tags.forCommand(token);
    if (!tag.allowed) return void (await this.report(sink, booking, { status: "CANCELED", cancellation_reason: "UNKNOWN" }));
    const since = new Date((await this.o.db.now()).getTime() - 5_000);
    const body = { chargeBoxIdList: [evse.chargeBoxId], connectorId: evse.evseId, expiry: booking.period.end_date_time, idTag: tag.idTag };
    const result = resultOf("ReserveNow", await this.o.rest.operation("ReserveNow", body));
    if (result.result === "TIMEOUT") throw new Error("the charge point did not answer in time");
    if (result.result !== "ACCEPTED") {
      this.o.log.warn({ booking: booking.id, result: result.result }, "steve: the charge point refused the booking's reservation; the booking is canceled");
      return void (await this.report(sink, booking, { status: "CANCELED", cancellation_reason: REFUSALS[result.result] ?? "UNKNOWN" }));
    }
    // SteVe's reservation_pk is the OCPP reservationId: the row SteVe booked for this call.
    const row = (await this.o.db.reservations(since)).find((r) => r.chargeBoxId === evse.chargeBoxId && r.evseId === evse.evseId && r.idTag === tag.idTag);
    if (!row) throw new Error("the accepted reservation is not in SteVe's database");
    await this.o.book.setReservation(booking.id, { reservationPk: row.reservationPk, chargeBoxId: row.chargeBoxId });
    await this.o.book.linkHold(uid, booking.id, row.reservationPk);
  }

  /**
   * Cancels the booking's SteVe reservation, if it has one (CancelReservation). The link goes first, so a poll
   * meanwhile does not take the cancellation for SteVe's own; a reservation SteVe fails to cancel runs out at
   * the period's end (logged).
   */
  async cancelReservation(booking: Booking): Promise<void> {
    const link = await this.o.book.reservation(booking.id);
    if (!link) return;
    await this.o.book.dropReservation(booking.id);
    try {
      const body = { chargeBoxIdList: [link.chargeBoxId], reservationId: link.reservationPk };
      const result = resultOf("CancelReservation", await this.o.rest.operation("CancelReservation", body));
      if (result.result !== "ACCEPTED" && result.result !== "UNKNOWN_RESERVATION") throw new Error(`the charge point answered ${result.result}`);
    } catch (error) {
      this.o.log.warn({ booking: booking.id, reservation: link.reservationPk, reason: (error as Error).message }, "steve: a booking's reservation not cancelled in SteVe; it expires at the period's end");
    }
  }

  /** Reports an event; a booking the CPO's side canceled frees its EVSE (the plugin releases only what it cancels itself). */
  private async report(sink: BookingStatusSink, booking: Booking, event: BookingEvent): Promise<void> {
    const report = await sink.report(booking.id, event, this.ctx());
    if (report.outcome !== "applied") this.o.log.info({ booking: booking.id, status: event.status, outcome: report.outcome }, "steve: booking event not applied");
    else if (event.status === "CANCELED" && booking.booking_option?.evse_uid) await this.o.book.unhold(booking.booking_option.evse_uid, booking.id);
  }
}
