import { bookingOwnerOf, ciKey, inScope, parseDateTime, partyKey, type Booking, type Page, type PageRequest, type PartyRef, type PartyScope, type PutOutcome, type Store } from "../../kit";

/** A span an EVSE is held for one booking, epoch ms [from, to). */
export interface Hold {
  booking: string;
  from: number;
  to: number;
  /** the SteVe reservation made for it, once made: not counted a second time as SteVe's own */
  reservationPk?: number;
}

/** The SteVe reservation made for a booking (ReserveNow at its start): its reservation_pk and charge box. */
export interface BookingReservation {
  reservationPk: number;
  chargeBoxId: string;
}

const PREFIX = "steve-bookings";
const HOLDS = `${PREFIX}-holds`;
const REQUESTS = `${PREFIX}-requests`;
const RESERVATIONS = `${PREFIX}-reservations`;
/** How many bookings a filtered list reads per store call. */
const CHUNK = 500;

const sortKeyOf = (booking: Booking): number => parseDateTime(booking.last_updated) ?? 0;
const isOpen = (booking: Booking) => booking.reservation_status === "PENDING" || booking.reservation_status === "RESERVED";

/**
 * The bookings of the steve adapter's CPO party, kept in the gateway's store (SteVe has no place for them):
 * the Bookings by last_updated, a copy per requesting eMSP (a partner's scoped list is a page of it), the
 * request_id → booking index, the open (PENDING, RESERVED) ones, the spans each EVSE is held for and the SteVe
 * reservation made for each. Holds change in one atomic store update per EVSE, so two requests for one
 * EVSE and time, on any gateway instance, cannot both be held.
 */
export class BookingBook {
  constructor(private readonly store: Store) {}

  private all = (ours: PartyRef) => `${PREFIX}:${partyKey(ours)}`;
  private byEmsp = (ours: PartyRef, emsp: PartyRef) => `${PREFIX}:${partyKey(ours)}:emsp:${partyKey(emsp)}`;
  private open = (ours: PartyRef) => `${PREFIX}-open:${partyKey(ours)}`;
  private requestKey = (ours: PartyRef, emsp: PartyRef, requestId: string) => `${partyKey(ours)}:${partyKey(emsp)}:${ciKey(requestId)}`;

  get(ours: PartyRef, id: string): Promise<Booking | undefined> {
    return this.store.get<Booking>(this.all(ours), ciKey(id));
  }

  async ofRequest(ours: PartyRef, emsp: PartyRef, requestId: string): Promise<Booking | undefined> {
    const id = await this.store.get<string>(REQUESTS, this.requestKey(ours, emsp, requestId));
    return id === undefined ? undefined : this.get(ours, id);
  }

  /** `ours`'s bookings in the page's dates; only those whose eMSP is in `scope` when one is given. */
  async list(ours: PartyRef, page: PageRequest, scope?: PartyScope): Promise<Page<Booking>> {
    const range = (collection: string, offset: number, limit: number) =>
      this.store.range<Booking>(collection, { from: page.dateFrom, to: page.dateTo, offset, limit });
    if (!scope) return range(this.all(ours), page.offset, page.limit);
    if (!scope.relay && scope.parties.length === 1) return range(this.byEmsp(ours, scope.parties[0]), page.offset, page.limit);
    const items: Booking[] = [];
    let total = 0;
    for (let offset = 0; ; offset += CHUNK) {
      const chunk = await range(this.all(ours), offset, CHUNK);
      for (const booking of chunk.items) {
        if (!inScope(scope, bookingOwnerOf(booking))) continue;
        if (total >= page.offset && items.length < page.limit) items.push(booking);
        total++;
      }
      if (chunk.items.length < CHUNK) return { items, total };
    }
  }

  async openBookings(ours: PartyRef): Promise<Booking[]> {
    const ids = await this.store.range<string>(this.open(ours), { offset: 0, limit: 100_000 });
    const bookings = await Promise.all(ids.items.map((id) => this.get(ours, id)));
    return bookings.filter((b): b is Booking => b !== undefined && isOpen(b));
  }

  async put(ours: PartyRef, booking: Booking): Promise<PutOutcome> {
    let outcome: PutOutcome = "created";
    await this.store.update<Booking>(this.all(ours), ciKey(booking.id), (current) => {
      outcome = current ? "updated" : "created";
      return { value: booking, sortKey: sortKeyOf(booking) };
    });
    await this.store.put(REQUESTS, this.requestKey(ours, bookingOwnerOf(booking), booking.request_id), booking.id);
    await this.indexed(ours, booking);
    return outcome;
  }

  /** Atomic change of a stored booking (the plugin's lifecycle); undefined when there is none. */
  async update(ours: PartyRef, id: string, change: (current: Booking) => Booking): Promise<Booking | undefined> {
    let found = false;
    const result = await this.store.update<Booking>(this.all(ours), ciKey(id), (current) => {
      found = current !== undefined;
      if (!current) return undefined;
      const value = change(current);
      return { value, sortKey: sortKeyOf(value) };
    });
    if (!found || !result) return undefined;
    await this.indexed(ours, result);
    return result;
  }

  /** The per-eMSP copy and the open index follow the booking (the Booking itself was written first). */
  private async indexed(ours: PartyRef, booking: Booking): Promise<void> {
    await this.store.put(this.byEmsp(ours, bookingOwnerOf(booking)), ciKey(booking.id), booking, sortKeyOf(booking));
    if (isOpen(booking)) await this.store.put(this.open(ours), ciKey(booking.id), booking.id, parseDateTime(booking.period.start_date_time) ?? 0);
    else await this.store.delete(this.open(ours), ciKey(booking.id));
  }

  /** The spans `evseUid` is held for. */
  async holds(evseUid: string): Promise<Hold[]> {
    return (await this.store.get<Hold[]>(HOLDS, ciKey(evseUid))) ?? [];
  }

  /**
   * Holds `evseUid` for `hold` unless a span of another booking overlaps it, in one atomic step (a span of the
   * same booking is replaced); false when taken.
   */
  async hold(evseUid: string, wanted: Hold): Promise<boolean> {
    const hold = { ...wanted, booking: ciKey(wanted.booking) };
    let held = false;
    await this.store.update<Hold[]>(HOLDS, ciKey(evseUid), (current = []) => {
      const others = current.filter((h) => h.booking !== hold.booking);
      held = !others.some((h) => h.from < hold.to && hold.from < h.to);
      return held ? { value: [...others, hold].sort((a, b) => a.from - b.from) } : undefined;
    });
    return held;
  }

  async unhold(evseUid: string, bookingId: string): Promise<void> {
    const key = ciKey(bookingId);
    await this.store.update<Hold[]>(HOLDS, ciKey(evseUid), (current = []) =>
      current.some((h) => h.booking === key) ? { value: current.filter((h) => h.booking !== key) } : undefined,
    );
  }

  /** Marks the span of `bookingId` on `evseUid` as the SteVe reservation `reservationPk`. */
  async linkHold(evseUid: string, bookingId: string, reservationPk: number): Promise<void> {
    const key = ciKey(bookingId);
    await this.store.update<Hold[]>(HOLDS, ciKey(evseUid), (current = []) =>
      current.some((h) => h.booking === key) ? { value: current.map((h) => (h.booking === key ? { ...h, reservationPk } : h)) } : undefined,
    );
  }

  reservation(bookingId: string): Promise<BookingReservation | undefined> {
    return this.store.get<BookingReservation>(RESERVATIONS, ciKey(bookingId));
  }

  setReservation(bookingId: string, reservation: BookingReservation): Promise<void> {
    return this.store.put(RESERVATIONS, ciKey(bookingId), reservation);
  }

  async dropReservation(bookingId: string): Promise<void> {
    await this.store.delete(RESERVATIONS, ciKey(bookingId));
  }
}
