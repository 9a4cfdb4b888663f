/**
 * OCPI DateTime: RFC 3339 restricted to UTC, `Z` optional (absence means
 * UTC), fractional seconds allowed, offsets not allowed (ocpi-notes §1.5).
 */
export const DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z?$/;

/** Epoch milliseconds of an OCPI DateTime, or undefined when it is not one. */
export const parseDateTime = (value: string): number | undefined => {
  const m = DATE_TIME_PATTERN.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  const ms = Date.parse(value.endsWith("Z") ? value : `${value}Z`);
  if (Number.isNaN(ms)) return undefined;
  const date = new Date(ms);
  // Date.parse rolls 2021-02-30 over to March; OCPI does not.
  const exact =
    date.getUTCFullYear() === y &&
    date.getUTCMonth() + 1 === mo &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s;
  return exact ? ms : undefined;
};

export const isDateTime = (value: string): boolean => value.length <= 29 && parseDateTime(value) !== undefined;
