import { ciKey, parseDateTime, partyKey, type Booking, type BookingLocation, type Calendar, type PartyRef, type Store, type Timeslot, type TimeslotWindow } from "../kit";

/** One booking's claim on a calendar of a BookingLocation, epoch ms [start, end). */
export interface Hold {
  booking: string;
  calendar: string;
  start: number;
  end: number;
}

interface Holds {
  holds: Hold[];
}

const ms = (text: string): number => parseDateTime(text)!;
const iso = (at: number): string => new Date(at).toISOString().replace(".000Z", "Z");

/** `slot` less the spans the holds take from it, as the timeslots left (its powers kept). */
const freeParts = (slot: Timeslot, holds: readonly Hold[]): Timeslot[] => {
  let parts: [number, number][] = [[ms(slot.start_date_time), ms(slot.end_date_time)]];
  for (const hold of holds)
    parts = parts.flatMap(([from, to]): [number, number][] =>
      hold.end <= from || hold.start >= to ? [[from, to]] : ([[from, hold.start], [hold.end, to]] as [number, number][]).filter(([a, b]) => b > a),
    );
  return parts.map(([from, to]) => ({ ...slot, start_date_time: iso(from), end_date_time: iso(to) }));
};

const overlaps = (slot: Timeslot, window: TimeslotWindow): boolean =>
  (window.to === undefined || ms(slot.start_date_time) < window.to) && (window.from === undefined || ms(slot.end_date_time) > window.from);

/** Whether [start, end) lies within one configured timeslot of the calendar and inside its begin_from/end_before. */
const offers = (calendar: Calendar, start: number, end: number): boolean =>
  start >= ms(calendar.begin_from) &&
  end <= ms(calendar.end_before) &&
  calendar.available_timeslots.some((slot) => ms(slot.start_date_time) <= start && end <= ms(slot.end_date_time));

const free = (holds: readonly Hold[], calendar: string, start: number, end: number, except?: string): boolean =>
  !holds.some((h) => h.booking !== except && ciKey(h.calendar) === ciKey(calendar) && h.start < end && start < h.end);

/**
 * The slots of the `local` adapter's BookingLocations that bookings hold, one record per BookingLocation in
 * the gateway's store, changed atomically (Store.update), so two requests for one slot cannot both get it.
 * Each Calendar is one bookable resource: a booking takes the first calendar that offers its whole period
 * (within one configured timeslot) and that no other booking holds for any part of it.
 */
export class BookingHolds {
  constructor(private readonly store: Store) {}

  private collection(party: PartyRef): string {
    return `local:bookings:holds:${partyKey(party)}`;
  }

  /** The location with each calendar's configured timeslots less what bookings hold, within the window. */
  async available(party: PartyRef, location: BookingLocation, window: TimeslotWindow): Promise<BookingLocation> {
    const { holds } = (await this.store.get<Holds>(this.collection(party), ciKey(location.id))) ?? { holds: [] };
    const calendars = (location.calendars ?? []).map((calendar) => {
      const taken = holds.filter((h) => ciKey(h.calendar) === ciKey(calendar.id));
      const left = calendar.available_timeslots.flatMap((slot) => freeParts(slot, taken)).filter((slot) => overlaps(slot, window));
      return { ...calendar, available_timeslots: left };
    });
    return { ...location, calendars };
  }

  /** Holds a calendar for `booking` (moving its hold when it has one); false when none is free for its period. */
  async hold(party: PartyRef, location: BookingLocation, booking: Booking): Promise<boolean> {
    const [start, end] = [ms(booking.period.start_date_time), ms(booking.period.end_date_time)];
    let held = false;
    await this.store.update<Holds>(this.collection(party), ciKey(location.id), (current) => {
      const holds = current?.holds ?? [];
      const calendar = (location.calendars ?? []).find((c) => offers(c, start, end) && free(holds, c.id, start, end, booking.id));
      held = calendar !== undefined;
      if (!calendar) return undefined;
      const others = holds.filter((h) => h.booking !== booking.id);
      return { value: { holds: [...others, { booking: booking.id, calendar: calendar.id, start, end }] } };
    });
    return held;
  }

  /** Frees what `booking` holds. */
  async release(party: PartyRef, locationId: string, bookingId: string): Promise<void> {
    await this.store.update<Holds>(this.collection(party), ciKey(locationId), (current) =>
      current && current.holds.some((h) => h.booking === bookingId) ? { value: { holds: current.holds.filter((h) => h.booking !== bookingId) } } : undefined,
    );
  }
}
