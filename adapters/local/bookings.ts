import {
  ciKey,
  parseDateTime,
  partyKey,
  sameParty,
  type Booking,
  type BookingLocation,
  type BookingStatusSink,
  type BookingsReceiverPort,
  type BookingsSenderPort,
  type DataChange,
  type PartyRef,
  type PortContext,
  type ReservationAnswer,
  type Session,
  type Store,
} from "../kit";
import type { LocalModule, LocalModuleContext, LocalModulePorts } from "./local-module";
import { OwnedCollection } from "./owned-collection";
import { BookingHolds } from "./booking-holds";
import { BookingRecords } from "./booking-records";

/**
 * Bookings on the `local` adapter.
 *
 * SENDER (we are the CPO): BookingLocations and their Calendars come from the config,
 * `adapters.local.bookings` (a list of 2.3.0 BookingLocations of our parties; each Calendar is one bookable
 * resource whose `available_timeslots` are the periods it can be booked in), and from the seed file's
 * `bookings`. What is free is those timeslots less what bookings hold (booking-holds.ts); bookings are kept
 * in the gateway's store (booking-records.ts). A request is decided at once: RESERVED when a calendar is
 * free for its whole period, else REJECTED; with `adapters.local.booking_decision_ms` the answer is PENDING
 * and the decision is reported through the sink that much later (a backend that decides asynchronously;
 * a decision still waiting when the gateway stops is lost: the booking stays PENDING). A session of one of our parties reported whole on the change
 * feed (a backend's POST /admin/v1/events) is handed to the sink, which fulfils the booking it matches.
 *
 * RECEIVER (we are the eMSP): the BookingLocations and Bookings CPO partners push, per CPO party.
 */
export const localBookings: LocalModule = {
  seedKey: "bookings",
  portNames: ["bookings.SENDER", "bookings.RECEIVER"],
  create(store: Store, context?: LocalModuleContext): LocalModulePorts {
    const configured = new Map<string, BookingLocation>();
    const keyOf = (party: PartyRef, id: string) => `${partyKey(party)}:${ciKey(id)}`;
    const add = (location: BookingLocation, where: string) => {
      const problems = context?.validateCanonical?.("bookings", location) ?? [];
      if (problems.length) throw new Error(`${where}: not a valid 2.3.0 BookingLocation: ${problems.join("; ")}`);
      const party = { country_code: location.country_code, party_id: location.party_id };
      if (context && !context.parties.some((p) => sameParty(p, party))) throw new Error(`${where}: ${location.country_code}/${location.party_id} is not one of our parties`);
      configured.set(keyOf(party, location.id), location);
    };
    const fromSettings = context?.settings.bookings;
    if (fromSettings !== undefined && !Array.isArray(fromSettings)) throw new Error("adapters.local.bookings: must be a list of BookingLocations");
    (fromSettings ?? []).forEach((location: BookingLocation, i: number) => add(location, `adapters.local.bookings[${i}]`));

    const holds = new BookingHolds(store);
    const records = new BookingRecords(store);
    const locationOf = (party: PartyRef, id: string) => configured.get(keyOf(party, id));
    const ofParty = (party: PartyRef) =>
      [...configured.values()]
        .filter((l) => sameParty(l, party))
        .sort((a, b) => a.last_updated.localeCompare(b.last_updated) || ciKey(a.id).localeCompare(ciKey(b.id)));
    const bookedAt = (booking: Booking) => locationOf(booking, booking.booking_requests[0].booking_request.booking_location_id);

    // `adapters.local.booking_decision_ms`: the simulated backend answers PENDING and reports its decision this much later
    const decisionMs = typeof context?.settings.booking_decision_ms === "number" ? context.settings.booking_decision_ms : 0;
    const timers = new Set<NodeJS.Timeout>();
    /** The answer now, or PENDING and the answer through the sink after `decisionMs`. */
    const decided = (booking: Booking, answer: ReservationAnswer, ctx: PortContext): ReservationAnswer => {
      if (!decisionMs || answer.status === "PENDING") return answer;
      const timer = setTimeout(() => {
        timers.delete(timer);
        sink?.report(booking.id, answer, ctx).catch((error) => context?.log.error({ err: error, booking: booking.id }, "local: reporting a booking decision failed"));
      }, decisionMs);
      timers.add(timer);
      return { status: "PENDING" };
    };

    let sink: BookingStatusSink | undefined;
    const unsubscribe = context?.changes?.subscribe((change: DataChange) => sessionSeen(change));
    /** A whole session of one of our parties: the sink fulfils the booking it matches. */
    const sessionSeen = async (change: DataChange): Promise<void> => {
      if (!sink || change.module !== "sessions" || change.kind !== "upsert" || !change.object?.cdr_token) return;
      if (!context?.parties.some((p) => sameParty(p, change.owner))) return;
      await sink.sessionStarted(change.object as unknown as Session, { party: change.owner });
    };

    const sender: BookingsSenderPort = {
      connect: (s) => void (sink = s),
      async listLocations(page, ctx) {
        const matching = ofParty(ctx.party).filter((l) => {
          const at = parseDateTime(l.last_updated)!;
          return (page.dateFrom === undefined || at >= page.dateFrom) && (page.dateTo === undefined || at < page.dateTo);
        });
        const items = await Promise.all(matching.slice(page.offset, page.offset + page.limit).map((l) => holds.available(ctx.party, l, page.window)));
        return { items, total: matching.length };
      },
      async getLocation(id, window, ctx) {
        const location = locationOf(ctx.party, id);
        return location && holds.available(ctx.party, location, window);
      },
      listBookings: (page, ctx) => records.list(ctx.party, page, ctx.scope),
      getBooking: (id, ctx) => records.get(ctx.party, id),
      bookingOfRequest: (requester, requestId, ctx) => records.ofRequest(ctx.party, requester, requestId),
      openBookings: (ctx) => records.openOnes(ctx.party),
      putBooking: (booking, ctx) => records.put(ctx.party, booking),
      updateBooking: (id, change, ctx) => records.modify(ctx.party, id, change),
      async reserve(booking, ctx) {
        const location = bookedAt(booking);
        const held = location !== undefined && (await holds.hold(ctx.party, location, booking));
        return decided(booking, held ? { status: "RESERVED" } : { status: "REJECTED", reason: "no calendar is free for the whole period" }, ctx);
      },
      async rebook(_current, changed, ctx) {
        const location = bookedAt(changed);
        if (location && (await holds.hold(ctx.party, location, changed))) return { status: "RESERVED" };
        return { status: "REJECTED", reason: "no calendar is free for the whole changed period" };
      },
      async release(booking: Booking, ctx: PortContext) {
        await holds.release(ctx.party, booking.booking_requests[0].booking_request.booking_location_id, booking.id);
      },
    };

    const receivedLocations = new OwnedCollection<BookingLocation>(store, "bookings.locations.received");
    const receivedBookings = new OwnedCollection<Booking>(store, "bookings.received");
    const receiver: BookingsReceiverPort = {
      getLocation: (owner, id) => receivedLocations.get(owner, id),
      putLocation: (owner, location) => receivedLocations.put(owner, location.id, location),
      getBooking: (owner, id) => receivedBookings.get(owner, id),
      putBooking: (owner, booking) => receivedBookings.put(owner, booking.id, booking),
    };

    return {
      ports: { "bookings.SENDER": sender, "bookings.RECEIVER": receiver },
      seed: async (object) => add(object as BookingLocation, "seed bookings"),
      stop: () => {
        unsubscribe?.();
        for (const timer of timers) clearTimeout(timer);
      },
    };
  },
};
