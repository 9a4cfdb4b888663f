import type { TariffElement, TariffRestrictions } from "../model";
import { datesBetween, instantOf, localTime, minutesOf, type LocalTime } from "./local-time";
import type { Meter } from "./meter";

/**
 * TariffRestrictions (OCPI 2.3.0 Tariffs § TariffRestrictions class): "These
 * restrictions are not for the entire Charging Session. They only describe if
 * and when a TariffElement becomes active or inactive during a Charging
 * Session." All present fields must hold (logical AND).
 */

/** What the gateway knows about one instant of the timeline. */
export type Phase = "CHARGING" | "PARKING" | "RESERVATION" | "RESERVATION_EXPIRES" | "BOOKING" | "BOOKING_EXPIRES";

export interface Moment {
  phase: Phase;
  local: LocalTime;
  /** seconds since the start of the session (of the reservation, in a reservation phase) */
  durationS: number;
  /** kWh delivered since the session started */
  kwh: number;
  powerKw?: number;
  currentA?: number;
}

const present = <T>(v: T | null | undefined): v is T => v !== undefined && v !== null;

/**
 * start_time (inclusive) and end_time (exclusive) are local times of day;
 * an end_time before the start_time runs past midnight ("if end < start
 * wraps past midnight; end of day = 00:00"), so 20:00–00:00 means from 20:00
 * to the end of the day and 22:00–06:00 overnight.
 */
const withinTimeOfDay = (r: TariffRestrictions, minute: number): boolean => {
  const start = present(r.start_time) ? minutesOf(r.start_time) : undefined;
  const end = present(r.end_time) ? minutesOf(r.end_time) : undefined;
  if (start === undefined && end === undefined) return true;
  if (end === undefined) return minute >= start!;
  if (start === undefined) return minute < end;
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
};

/**
 * `reservation`: the element prices a reservation (RESERVATION) or an expired
 * one (RESERVATION_EXPIRES), and nothing else; elements without it never price
 * a reservation. An expired reservation is priced by both kinds, the
 * RESERVATION_EXPIRES ones first (ReservationRestrictionType note: "the time
 * based cost of an expired reservation will be calculated based on the
 * RESERVATION_EXPIRES TariffElement").
 */
const reservationHolds = (r: TariffRestrictions, phase: Phase): boolean => {
  if (phase === "CHARGING" || phase === "PARKING" || phase === "BOOKING" || phase === "BOOKING_EXPIRES") return !present(r.reservation);
  if (r.reservation === "RESERVATION") return true;
  return phase === "RESERVATION_EXPIRES" && r.reservation === "RESERVATION_EXPIRES";
};

/**
 * `booking` (OCPI 2.3.0 Bookings extension, BookingRestrictionType): the element prices the booked period
 * (BOOKING) or a booking nobody came for (BOOKING_EXPIRES), and nothing else; an expired booking is priced by
 * both, as an expired reservation is. BOOKING_CANCELLATION_FEES and BOOKING_OVERTIME elements price nothing here.
 */
const bookingHolds = (r: TariffRestrictions, phase: Phase): boolean => {
  if (phase === "BOOKING") return r.booking === "BOOKING";
  if (phase === "BOOKING_EXPIRES") return r.booking === "BOOKING" || r.booking === "BOOKING_EXPIRES";
  return !present(r.booking);
};

export const restrictionsHold = (r: TariffRestrictions | null | undefined, m: Moment): boolean => {
  if (!r) return m.phase === "CHARGING" || m.phase === "PARKING";
  if (!bookingHolds(r, m.phase)) return false;
  if (!reservationHolds(r, m.phase)) return false;
  if (!withinTimeOfDay(r, m.local.minuteOfDay)) return false;
  // start_date inclusive, end_date exclusive, both local dates.
  if (present(r.start_date) && m.local.date < r.start_date) return false;
  if (present(r.end_date) && m.local.date >= r.end_date) return false;
  if (present(r.day_of_week) && r.day_of_week.length && !r.day_of_week.includes(m.local.dayOfWeek as never)) return false;
  // min_* inclusive, max_* exclusive (min_kwh "valid from", max_kwh "valid until"; min_duration "(inclusive)",
  // max_duration "(exclusive)"). Current and power are instantaneous; unknown ones satisfy no bound.
  if (present(r.min_kwh) && !(m.kwh >= r.min_kwh)) return false;
  if (present(r.max_kwh) && !(m.kwh < r.max_kwh)) return false;
  if (present(r.min_current) && !(present(m.currentA) && m.currentA >= r.min_current)) return false;
  if (present(r.max_current) && !(present(m.currentA) && m.currentA < r.max_current)) return false;
  if (present(r.min_power) && !(present(m.powerKw) && m.powerKw >= r.min_power)) return false;
  if (present(r.max_power) && !(present(m.powerKw) && m.powerKw < r.max_power)) return false;
  if (present(r.min_duration) && !(m.durationS >= r.min_duration)) return false;
  if (present(r.max_duration) && !(m.durationS < r.max_duration)) return false;
  return true;
};

/** Whether the restrictions depend on the local time: a time of day, a date or a day of the week. */
export const onLocalTime = (r: TariffRestrictions): boolean =>
  present(r.start_time) || present(r.end_time) || present(r.start_date) || present(r.end_date) || (present(r.day_of_week) && r.day_of_week.length > 0);

/**
 * Every instant in (from, to) at which a restriction of these elements may
 * change its value: local times of day named by start_time/end_time and local
 * midnights (dates, days of week), when a restriction depends on the local time,
 * duration thresholds counted from `durationOrigin`, and the instants the meter
 * reaches a kWh threshold. Between two of them (and the meter's samples) every
 * restriction is constant.
 */
export const restrictionBoundaries = (
  elements: TariffElement[],
  from: number,
  to: number,
  durationOrigin: number,
  timeZone: string,
  meter?: Meter,
): number[] => {
  const restrictions = elements.map((e) => e.restrictions).filter(present);
  const minutes = new Set<number>([0]);
  const instants: number[] = [];
  for (const r of restrictions) {
    for (const t of [r.start_time, r.end_time]) if (present(t)) minutes.add(minutesOf(t));
    for (const s of [r.min_duration, r.max_duration]) if (present(s)) instants.push(durationOrigin + s * 1000);
    for (const kwh of [r.min_kwh, r.max_kwh]) if (present(kwh) && meter) instants.push(...meter.crossings(kwh));
  }
  if (restrictions.some(onLocalTime)) {
    const dates = datesBetween(localTime(from - 86_400_000, timeZone).date, localTime(to + 86_400_000, timeZone).date);
    for (const date of dates) for (const minute of minutes) instants.push(instantOf(date, minute, timeZone));
  }
  return instants.filter((t) => t > from && t < to);
};
