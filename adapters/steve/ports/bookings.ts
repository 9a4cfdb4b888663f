import { ciKey, parseDateTime, type Booking, type BookingsSenderPort, type BookingStatusSink, type ReservationAnswer } from "../../kit";
import type { SteveBackend } from "../backend";
import { bookableLocations, bookingLocationsOf, periodRefusal, reservedInSteve, UNBOOKABLE } from "../bookings/availability";
import type { BookingBook } from "../bookings/book";
import type { BookingFollower } from "../bookings/follow";
import { tokenOfBooking } from "../bookings/follow";
import type { SteveBookingSettings } from "../settings";
import { fromDatabase } from "../unavailable";

/** What the steve adapter answers: it decides at once, never PENDING. */
type Decided = Exclude<ReservationAnswer, { status: "PENDING" }>;

const rejected = (reason: string): Decided => ({ status: "REJECTED", reason });

/**
 * Bookings on SteVe (docs/steve.md, "Bookings"): availability from SteVe's reservations and connector status
 * (bookings/availability.ts), the bookings and the spans they hold in the gateway's store (bookings/book.ts),
 * SteVe reservations made and followed by the poller (bookings/follow.ts). A request is answered at once:
 * RESERVED when an EVSE of the BookingLocation (the one its booking_option names, else the first free one)
 * is free for the whole period, else REJECTED; FAILED when SteVe cannot provision the booking's token.
 */
export const bookingsSender = (
  backend: SteveBackend,
  book: BookingBook,
  settings: SteveBookingSettings | undefined,
  follower: () => BookingFollower | undefined,
  connect: (sink: BookingStatusSink) => void,
): BookingsSenderPort => {
  const ours = () => backend.owner;
  const read = async () => {
    const engine = backend.require();
    return backend.readContext(engine, await engine.db.now());
  };

  /** Holds an EVSE of the booking's Location for its period: the first candidate free in SteVe and in the store. */
  const hold = (booking: Booking, preferred?: string): Promise<Decided> =>
    fromDatabase(async () => {
      if (!settings) return rejected("no Location of this CPO can be booked");
      const ctx = await read();
      const refusal = periodRefusal(settings, booking, ctx.now);
      if (refusal) return rejected(refusal);
      const [location] = await bookableLocations(ctx, settings, [booking.location_id]);
      if (!location) return rejected("the Location cannot be booked");
      const token = tokenOfBooking(booking);
      if (!token) return rejected("booking_tokens: SteVe reserves a charger for a token, so one is required");
      let tag;
      try {
        tag = await backend.tags.forCommand(token);
      } catch {
        return { status: "FAILED", reason: "the central system is not reachable" };
      }
      if (!tag.allowed) return rejected(tag.reason);
      const named = booking.booking_option?.evse_uid;
      const evses = (location.evses ?? []).filter((e) => !named || named === "#NA" || ciKey(e.uid) === ciKey(named));
      if (evses.length === 0) return rejected("booking_option.evse_uid: no such EVSE at the Location");
      if (preferred) evses.sort((a, b) => Number(ciKey(b.uid) === ciKey(preferred)) - Number(ciKey(a.uid) === ciKey(preferred)));
      const span = { from: parseDateTime(booking.period.start_date_time)!, to: parseDateTime(booking.period.end_date_time)! };
      for (const evse of evses) {
        if (UNBOOKABLE.has(evse.status) || (await reservedInSteve(ctx, book, evse.uid, span))) continue;
        if (await book.hold(evse.uid, { booking: booking.id, ...span })) return { status: "RESERVED", booking_option: { ...booking.booking_option, evse_uid: evse.uid } };
      }
      return rejected("the timeslot is taken");
    });

  return {
    connect,
    listLocations: (page) =>
      fromDatabase(async () => {
        if (!settings) return { items: [], total: 0 };
        const rc = await read();
        const inDates = (await bookableLocations(rc, settings, settings.locations))
          .filter((l) => (page.dateFrom === undefined || parseDateTime(l.last_updated)! >= page.dateFrom) && (page.dateTo === undefined || parseDateTime(l.last_updated)! < page.dateTo))
          .sort((a, b) => a.last_updated.localeCompare(b.last_updated) || ciKey(a.id).localeCompare(ciKey(b.id)));
        const slice = inDates.slice(page.offset, page.offset + page.limit);
        return { items: await bookingLocationsOf(rc, settings, book, slice, page.window), total: inDates.length };
      }),
    getLocation: (id, window) =>
      fromDatabase(async () => {
        if (!settings) return undefined;
        const rc = await read();
        const [location] = await bookableLocations(rc, settings, [id]);
        return location && (await bookingLocationsOf(rc, settings, book, [location], window))[0];
      }),
    listBookings: (page, ctx) => book.list(ours(), page, ctx.scope),
    getBooking: (id) => book.get(ours(), id),
    bookingOfRequest: (requester, requestId) => book.ofRequest(ours(), requester, requestId),
    openBookings: () => book.openBookings(ours()),
    putBooking: (booking) => book.put(ours(), booking),
    updateBooking: (id, change) => book.update(ours(), id, change),
    reserve: (booking) => hold(booking),
    async rebook(current, changed) {
      const before = current.booking_option?.evse_uid;
      const answer = await hold(changed, before);
      if (answer.status !== "RESERVED") return answer;
      const after = answer.booking_option?.evse_uid;
      if (before && after && ciKey(before) !== ciKey(after)) await book.unhold(before, current.id);
      // A SteVe reservation of the old period goes; the poller reserves the new one when it is due.
      await follower()?.cancelReservation(current);
      return answer;
    },
    async release(booking) {
      const uid = booking.booking_option?.evse_uid;
      if (uid) await book.unhold(uid, booking.id);
      await follower()?.cancelReservation(booking);
    },
  };
};
