/**
 * OCPI DateTime: RFC 3339 restricted to UTC, `Z` optional (absence means
 * UTC), fractional seconds allowed, offsets not allowed (ocpi-notes §1.5).
 */
export const DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

/**
 * Epoch milliseconds of an OCPI DateTime, or undefined when it is not one.
 * Every field is range-checked (Date.parse would roll 2021-02-30 over to
 * March; OCPI does not) and the time computed with Date.UTC: a pulled page
 * checks three of these per Location, and Date.parse plus reading the fields
 * back cost three times as much. Digits past milliseconds are cut off, as
 * Date.parse does.
 */
export const parseDateTime = (value: string): number | undefined => {
  const m = DATE_TIME_PATTERN.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]];
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1];
  if (mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(1, 4).padEnd(3, "0"));
  // Date.UTC takes years 0-99 as 1900-1999: those are computed 400 years (146,097 days, leap years alike) later
  return y < 100 ? Date.UTC(y + 400, mo - 1, d, h, mi, s, ms) - FOUR_CENTURIES_MS : Date.UTC(y, mo - 1, d, h, mi, s, ms);
};

export const isDateTime = (value: string): boolean => value.length <= 29 && parseDateTime(value) !== undefined;
