/**
 * OCPI DateTime: RFC 3339 restricted to UTC, `Z` optional (absence means
 * UTC), fractional seconds allowed, offsets not allowed (OCPI 2.2.1 Types):
 * `YYYY-MM-DDThh:mm:ss`, then `.` and 1 to 9 digits, then `Z`, each optional.
 */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;
const [DASH, COLON, DOT, T, Z] = ["-", ":", ".", "T", "Z"].map((c) => c.charCodeAt(0));
/** [position, character] of the separators of the date and time */
const SEPARATORS: readonly [number, number][] = [[4, DASH], [7, DASH], [10, T], [13, COLON], [16, COLON]];

/** The number written by the `count` ASCII digits at `from`, or -1 when one is not a digit (or is missing). */
const digits = (text: string, from: number, count: number): number => {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    n = n * 10 + digit;
  }
  return n;
};

/**
 * Epoch milliseconds of an OCPI DateTime, or undefined when it is not one.
 * Read character by character and every field range-checked (Date.parse
 * would roll 2021-02-30 over to March; OCPI does not), the time computed
 * with Date.UTC: a pulled page checks three of these per Location, and a
 * regular expression plus Date.parse and reading the fields back cost three
 * times as much. Digits past milliseconds are cut off, as Date.parse does.
 */
export const parseDateTime = (value: string): number | undefined => {
  const { length } = value;
  if (length < 19) return undefined;
  for (const [at, c] of SEPARATORS) if (value.charCodeAt(at) !== c) return undefined;
  const y = digits(value, 0, 4);
  const mo = digits(value, 5, 2);
  const d = digits(value, 8, 2);
  const h = digits(value, 11, 2);
  const mi = digits(value, 14, 2);
  const s = digits(value, 17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || s < 0) return undefined;
  let at = 19;
  let ms = 0;
  if (value.charCodeAt(at) === DOT) {
    let end = at + 1;
    while (digits(value, end, 1) >= 0) end++;
    const fraction = end - at - 1;
    if (fraction < 1 || fraction > 9) return undefined;
    // milliseconds: the first three digits, as many as there are, padded with zeros
    for (let i = at + 1; i < at + 4; i++) ms = ms * 10 + (i < end ? digits(value, i, 1) : 0);
    at = end;
  }
  if (value.charCodeAt(at) === Z) at++;
  if (at !== length) return undefined;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1];
  if (mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || s > 59) return undefined;
  // Date.UTC takes years 0-99 as 1900-1999: those are computed 400 years (146,097 days, leap years alike) later
  return y < 100 ? Date.UTC(y + 400, mo - 1, d, h, mi, s, ms) - FOUR_CENTURIES_MS : Date.UTC(y, mo - 1, d, h, mi, s, ms);
};

export const isDateTime = (value: string): boolean => value.length <= 29 && parseDateTime(value) !== undefined;
