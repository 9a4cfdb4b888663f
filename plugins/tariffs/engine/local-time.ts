/**
 * Local wall-clock time of a Location (OCPI 2.3.0 Tariffs, TariffRestrictions:
 * start_time, end_time, start_date, end_date and day_of_week are "in local time,
 * the time zone is defined in the time_zone field of the Location"). Pure
 * functions over IANA time zone names, built on Intl.
 */

export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  /** minutes since local midnight, 0..1439 */
  minuteOfDay: number;
  /** MONDAY … SUNDAY */
  dayOfWeek: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

const formatter = (timeZone: string): Intl.DateTimeFormat => {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
    });
    formatters.set(timeZone, f);
  }
  return f;
};

const partsOf = (ms: number, timeZone: string): Record<string, string> =>
  Object.fromEntries(formatter(timeZone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));

const DAYS = ["SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"];

const DAY_MS = 86_400_000;

/** YYYY-MM-DD of a day counted from 1970-01-01, remembered (a session's days recur across sessions). */
const dayNames = new Map<number, string>();
const dateOfDay = (day: number): string => {
  let date = dayNames.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayNames.size >= 100_000) dayNames.clear();
    dayNames.set(day, date);
  }
  return date;
};

export const localTime = (ms: number, timeZone: string): LocalTime => {
  // the wall clock is UTC moved by the zone's offset: its day and minute, counted as UTC ones, are the zone's local ones
  const wall = Math.floor(ms / 1000) * 1000 + offsetAt(ms, timeZone);
  const day = Math.floor(wall / DAY_MS);
  return {
    date: dateOfDay(day),
    minuteOfDay: Math.floor((wall - day * DAY_MS) / 60_000),
    // 1970-01-01 was a Thursday
    dayOfWeek: DAYS[(((day + 4) % 7) + 7) % 7],
  };
};

/** How far the zone's wall clock is ahead of UTC at this instant, in ms, read from Intl. */
const offsetFromIntl = (ms: number, timeZone: string): number => {
  const p = partsOf(ms, timeZone);
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return wall - Math.floor(ms / 1000) * 1000;
};

/**
 * Offsets by zone and quarter of an hour (UTC), where the offset is the same at both ends of the quarter:
 * zones change their offset at whole quarters of an hour, so within such a quarter it is constant. Intl is slow
 * (most of the time of pricing a session went there); this asks it twice per quarter instead of per instant.
 */
const QUARTER_MS = 900_000;
const offsets = new Map<string, Map<number, number | null>>();

const offsetAt = (ms: number, timeZone: string): number => {
  const quarter = Math.floor(ms / QUARTER_MS);
  let zone = offsets.get(timeZone);
  if (!zone) offsets.set(timeZone, (zone = new Map()));
  let offset = zone.get(quarter);
  if (offset === undefined) {
    const first = offsetFromIntl(quarter * QUARTER_MS, timeZone);
    offset = first === offsetFromIntl((quarter + 1) * QUARTER_MS - 1000, timeZone) ? first : null;
    if (zone.size >= 100_000) zone.clear();
    zone.set(quarter, offset);
  }
  return offset ?? offsetFromIntl(ms, timeZone);
};

/**
 * The instant at which the local wall clock shows `minuteOfDay` on `date`.
 * The offset is looked up twice so a date on which daylight saving time
 * changes lands on the offset valid at that wall-clock time.
 */
export const instantOf = (date: string, minuteOfDay: number, timeZone: string): number => {
  const [y, m, d] = date.split("-").map(Number);
  const wall = Date.UTC(y, m - 1, d, 0, minuteOfDay);
  const first = wall - offsetAt(wall, timeZone);
  return wall - offsetAt(first, timeZone);
};

/** The local dates from `fromDate` to `toDate` inclusive (YYYY-MM-DD). */
export const datesBetween = (fromDate: string, toDate: string): string[] => {
  const dates: string[] = [];
  const [y, m, d] = fromDate.split("-").map(Number);
  for (let day = Date.UTC(y, m - 1, d) / DAY_MS; ; day++) {
    const date = dateOfDay(day);
    dates.push(date);
    if (date >= toDate) return dates;
  }
};

/** "HH:MM" → minutes since midnight. */
export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
