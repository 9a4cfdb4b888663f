import { ciKey, parseDateTime, type Booking, type BookingLocation, type Calendar, type Evse, type Location, type TimeslotWindow, type Timeslot } from "../../kit";
import type { ReservationRow } from "../db/rows";
import { evseUid } from "../mapping/evse-id";
import { boxesOfLocation, loadLocations } from "../poll/locations";
import type { PollContext } from "../poll/context";
import type { SteveBookingSettings } from "../settings";
import type { BookingBook, Hold } from "./book";

/**
 * What can be booked at the steve adapter's Locations (docs/steve.md, "Bookings"): one BookingLocation per
 * Location named in `adapters.steve.bookings.locations` (same id), one Calendar per EVSE (id: the EVSE's uid).
 * A Calendar runs from now (on the `timeslot_increment` grid when there is one) for `horizon_days`; its
 * available timeslots are that span less what holds the EVSE: SteVe's WAITING and ACCEPTED reservations not
 * used by a transaction (start_datetime to expiry_datetime) and the spans the gateway holds for bookings. An
 * EVSE whose status (from SteVe's connector status, as in Locations) is OUTOFORDER, INOPERATIVE, UNKNOWN or
 * REMOVED offers nothing.
 */

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
export const UNBOOKABLE = new Set(["OUTOFORDER", "INOPERATIVE", "UNKNOWN", "REMOVED"]);

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A span in epoch ms, [from, to). */
interface Span {
  from: number;
  to: number;
}

/** The span the calendars cover at `now`: [begin_from, end_before). */
export function calendarSpan(settings: SteveBookingSettings, now: Date): Span {
  const step = (settings.timeslot_increment ?? 0) * MINUTE_MS;
  // whole seconds, as OCPI DateTimes are written; on the grid when there is one
  const from = step ? Math.floor(now.getTime() / step) * step : Math.floor(now.getTime() / 1000) * 1000;
  return { from, to: from + settings.horizon_days * DAY_MS };
}

/** `within` less the `busy` spans, cut to the grid of `step` ms from `grid`. */
export function freeSpans(within: Span, busy: Span[], step: number, grid: number): Span[] {
  const free: Span[] = [];
  let cursor = within.from;
  for (const b of [...busy].sort((x, y) => x.from - y.from)) {
    if (b.to <= cursor) continue;
    if (b.from >= within.to) break;
    if (b.from > cursor) free.push({ from: cursor, to: b.from });
    cursor = Math.max(cursor, b.to);
  }
  if (cursor < within.to) free.push({ from: cursor, to: within.to });
  const up = (ms: number) => grid + Math.ceil((ms - grid) / step) * step;
  const down = (ms: number) => grid + Math.floor((ms - grid) / step) * step;
  return free.map((s) => ({ from: up(s.from), to: down(s.to) })).filter((s) => s.from < s.to);
}

const reservationSpan = (r: ReservationRow): Span => ({ from: r.startDatetime?.getTime() ?? 0, to: r.expiryDatetime?.getTime() ?? Number.MAX_SAFE_INTEGER });

/** What holds each EVSE of some Locations in [from, to): SteVe's reservations and the gateway's holds, by ciKey(evse uid). */
async function busyOf(ctx: PollContext, book: BookingBook, locations: Location[], span: Span): Promise<Map<string, Span[]>> {
  const boxes = [...new Set(locations.flatMap((l) => boxesOfLocation(ctx, l.id)))];
  const busy = new Map<string, Span[]>();
  const ours = new Set<number>();
  for (const evse of locations.flatMap((l) => l.evses ?? [])) {
    const holds: Hold[] = await book.holds(evse.uid);
    holds.forEach((h) => h.reservationPk !== undefined && ours.add(h.reservationPk));
    busy.set(ciKey(evse.uid), holds);
  }
  // A booking's own SteVe reservation is its hold, already counted.
  for (const row of await ctx.db.reservationsHolding(boxes, new Date(span.from), new Date(span.to))) {
    if (ours.has(row.reservationPk)) continue;
    const key = ciKey(evseUid(row.chargeBoxId, row.evseId));
    busy.set(key, [...(busy.get(key) ?? []), reservationSpan(row)]);
  }
  return busy;
}

/** The Locations of these ids that the settings make bookable, read from SteVe now. */
export async function bookableLocations(ctx: PollContext, settings: SteveBookingSettings, ids: string[]): Promise<Location[]> {
  const bookable = new Set(settings.locations.map(ciKey));
  const wanted = ids.filter((id) => bookable.has(ciKey(id)));
  if (wanted.length === 0) return [];
  const { locations } = await loadLocations(ctx, wanted);
  return [...locations.values()];
}

/** The BookingLocations of `locations`, their calendars' timeslots within `window`. */
export async function bookingLocationsOf(ctx: PollContext, settings: SteveBookingSettings, book: BookingBook, locations: Location[], window: TimeslotWindow): Promise<BookingLocation[]> {
  const span = calendarSpan(settings, ctx.now);
  const within = { from: Math.max(span.from, window.from ?? span.from), to: Math.min(span.to, window.to ?? span.to) };
  const busy = within.from < within.to ? await busyOf(ctx, book, locations, within) : new Map();
  // on the increment's grid, or at least on whole seconds, as DateTimes are written
  const step = (settings.timeslot_increment ?? 0) * MINUTE_MS || 1000;
  const calendar = (evse: Evse): Calendar => {
    const free = UNBOOKABLE.has(evse.status) || within.from >= within.to ? [] : freeSpans(within, busy.get(ciKey(evse.uid)) ?? [], step, span.from);
    return {
      id: evse.uid,
      begin_from: iso(span.from),
      end_before: iso(span.to),
      ...(settings.timeslot_increment ? { timeslot_increment: settings.timeslot_increment } : {}),
      available_timeslots: free.map((s): Timeslot => ({ start_date_time: iso(s.from), end_date_time: iso(s.to) })),
      last_updated: iso(ctx.now.getTime()),
    };
  };
  return locations.map((location) => ({
    country_code: location.country_code,
    party_id: location.party_id,
    id: location.id,
    location_id: location.id,
    ...(settings.policy ? { policy: settings.policy } : {}),
    ...(settings.tariff_ids.length ? { tariff_ids: settings.tariff_ids } : {}),
    booking_terms: settings.booking_terms as BookingLocation["booking_terms"],
    calendars: (location.evses ?? []).map(calendar),
    last_updated: location.last_updated,
  }));
}

/** Why a booking's period cannot be booked at all at `now` (in the past, outside the calendars, off the grid), or undefined. */
export function periodRefusal(settings: SteveBookingSettings, booking: Booking, now: Date): string | undefined {
  const from = parseDateTime(booking.period.start_date_time);
  const to = parseDateTime(booking.period.end_date_time);
  if (from === undefined || to === undefined || from >= to) return "the period must end after it starts";
  if (to <= now.getTime()) return "the period is over";
  const span = calendarSpan(settings, now);
  if (from < span.from - MINUTE_MS || to > span.to) return `the period is outside the calendars (${iso(span.from)} to ${iso(span.to)})`;
  const step = (settings.timeslot_increment ?? 0) * MINUTE_MS;
  if (step && ((from - span.from) % step !== 0 || (to - span.from) % step !== 0)) return `the period must start and end on the ${settings.timeslot_increment}-minute grid`;
  return undefined;
}

/** An EVSE uid ("<charge_box_id>-<evse number>") as SteVe knows it. */
export function steveEvseOf(uid: string): { chargeBoxId: string; evseId: number } | undefined {
  const dash = uid.lastIndexOf("-");
  const evseId = Number(uid.slice(dash + 1));
  return dash > 0 && Number.isInteger(evseId) && evseId > 0 ? { chargeBoxId: uid.slice(0, dash), evseId } : undefined;
}

/** Whether SteVe has a reservation of its own (not one made for a booking) holding the EVSE at some time in the span, read now. */
export async function reservedInSteve(ctx: PollContext, book: BookingBook, uid: string, span: Span): Promise<boolean> {
  const evse = steveEvseOf(uid);
  if (!evse) return false;
  const ours = new Set((await book.holds(uid)).map((h) => h.reservationPk));
  const rows = await ctx.db.reservationsHolding([evse.chargeBoxId], new Date(span.from), new Date(span.to));
  return rows.some((r) => r.evseId === evse.evseId && ciKey(r.chargeBoxId) === ciKey(evse.chargeBoxId) && !ours.has(r.reservationPk));
}
