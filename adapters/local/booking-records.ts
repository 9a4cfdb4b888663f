import { bookingOwnerOf, ciKey, inScope, partyKey, type Booking, type Page, type PageRequest, type PartyRef, type PartyScope, type PutOutcome, type Store } from "../kit";
import { OwnedCollection } from "./owned-collection";

/** How many bookings a list for several parties reads per store call. */
const CHUNK = 500;

const OPEN_STATUSES = new Set(["PENDING", "RESERVED"]);

const upper = (p: PartyRef): PartyRef => ({ country_code: p.country_code.toUpperCase(), party_id: p.party_id.toUpperCase() });

/**
 * Our parties' bookings in the `local` adapter, in the gateway's store: the bookings of each of our parties
 * by last_updated, and beside them, written with each booking, an index per (our party, eMSP) for a partner's
 * list, the booking id under each (eMSP, request_id), and the set of open (PENDING, RESERVED) ones for the
 * no-show check. A booking's eMSP never changes, so the indexes follow it without reindexing.
 */
export class BookingRecords {
  private readonly bookings: OwnedCollection<Booking>;

  constructor(private readonly store: Store) {
    this.bookings = new OwnedCollection<Booking>(store, "bookings");
  }

  private byEmsp(party: PartyRef): OwnedCollection<Booking> {
    return new OwnedCollection<Booking>(this.store, `bookings.by-emsp:${partyKey(party)}`);
  }

  private requests(party: PartyRef): string {
    return `local:bookings:requests:${partyKey(party)}`;
  }

  private open(party: PartyRef): string {
    return `local:bookings:open:${partyKey(party)}`;
  }

  /** `party`'s bookings, only those of eMSPs in `scope` when one is given. */
  async list(party: PartyRef, page: PageRequest, scope?: PartyScope): Promise<Page<Booking>> {
    if (!scope) return this.bookings.list(party, page);
    if (!scope.relay && scope.parties.length === 1) return this.byEmsp(party).list(upper(scope.parties[0]), page);
    const items: Booking[] = [];
    let total = 0;
    for (let offset = 0; ; offset += CHUNK) {
      const chunk = await this.bookings.list(party, { ...page, offset, limit: CHUNK });
      for (const booking of chunk.items) {
        if (!inScope(scope, bookingOwnerOf(booking))) continue;
        if (total >= page.offset && items.length < page.limit) items.push(booking);
        total++;
      }
      if (chunk.items.length < CHUNK) return { items, total };
    }
  }

  get(party: PartyRef, id: string): Promise<Booking | undefined> {
    return this.bookings.get(party, id);
  }

  async ofRequest(party: PartyRef, requester: PartyRef, requestId: string): Promise<Booking | undefined> {
    const id = await this.store.get<string>(this.requests(party), `${partyKey(requester)}:${ciKey(requestId)}`);
    return id === undefined ? undefined : this.bookings.get(party, id);
  }

  async openOnes(party: PartyRef): Promise<Booking[]> {
    const ids = await this.store.range<string>(this.open(party), { offset: 0, limit: Number.MAX_SAFE_INTEGER });
    const found = await Promise.all(ids.items.map((id) => this.bookings.get(party, id)));
    return found.filter((b): b is Booking => b !== undefined && OPEN_STATUSES.has(b.reservation_status));
  }

  async put(party: PartyRef, booking: Booking): Promise<PutOutcome> {
    const outcome = await this.bookings.put(party, booking.id, booking);
    const owner = upper(bookingOwnerOf(booking));
    await this.store.put(this.requests(party), `${partyKey(owner)}:${ciKey(booking.request_id)}`, booking.id);
    await this.indexed(party, booking);
    return outcome;
  }

  async modify(party: PartyRef, id: string, change: (current: Booking) => Booking): Promise<Booking | undefined> {
    const after = await this.bookings.modify(party, id, change);
    if (after) await this.indexed(party, after);
    return after;
  }

  private async indexed(party: PartyRef, booking: Booking): Promise<void> {
    await this.byEmsp(party).put(upper(bookingOwnerOf(booking)), booking.id, booking);
    if (OPEN_STATUSES.has(booking.reservation_status)) await this.store.put(this.open(party), booking.id, booking.id);
    else await this.store.delete(this.open(party), booking.id);
  }
}
