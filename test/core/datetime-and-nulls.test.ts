import { isDateTime, parseDateTime } from "../../core/protocol/datetime";
import { withoutNulls } from "../../core/model/without-nulls";

/**
 * The two steps every object a partner sends goes through before its schema
 * (core/model/tolerant-reader.ts), made cheap for pulled pages (issue #11):
 * DateTimes are checked field by field instead of through Date, and an object
 * without nulls is not copied. Both must answer exactly as before.
 */
describe("parseDateTime", () => {
  it("reads every in-range DateTime as Date.parse does, with or without Z and fractions", () => {
    for (const text of [
      "2026-01-01T00:00:00Z",
      "2026-01-01T00:00:00",
      "2024-02-29T23:59:59.5Z",
      "2000-02-29T12:00:00.123456789Z",
      "1970-01-01T00:00:00.001",
      "2108-08-20T06:49:07.22Z",
      "2047-05-22T13:13:55.1",
      "9999-12-31T23:59:59.999Z",
      "1900-03-01T00:00:00Z",
    ])
      expect(parseDateTime(text)).toBe(Date.parse(text.endsWith("Z") ? text : `${text}Z`));
  });

  it("keeps years 0-99 as they are (Date.UTC would take them as 1900-1999), leap days included", () => {
    expect(parseDateTime("0000-02-29T00:00:00Z")).toBe(Date.parse("0000-02-29T00:00:00Z"));
    expect(parseDateTime("0099-12-31T23:59:59.999Z")).toBe(Date.parse("0099-12-31T23:59:59.999Z"));
    expect(new Date(parseDateTime("0050-06-15T10:00:00Z")!).getUTCFullYear()).toBe(50);
  });

  it("refuses what Date would roll over, and what is not a DateTime", () => {
    for (const text of [
      "2021-02-29T00:00:00Z",
      "1900-02-29T00:00:00Z",
      "2021-04-31T00:00:00Z",
      "2021-13-01T00:00:00Z",
      "2021-00-10T00:00:00Z",
      "2021-01-00T00:00:00Z",
      "2021-01-01T24:00:00Z",
      "2021-01-01T23:60:00Z",
      "2021-01-01T23:59:60Z",
      "2021-01-01T00:00:00+01:00",
      "2021-01-01 00:00:00Z",
      "2021-01-01T00:00:00.Z",
      "2021-01-01T00:00:00ZZ",
      "2021-01-01T00:00:00Z\n",
      "2021-01-01T00:00:0",
      "2021-1-01T00:00:00Z",
      "２021-01-01T00:00:00Z",
    ])
      expect(parseDateTime(text)).toBeUndefined();
    expect(isDateTime("2021-01-01T00:00:00.1234567890Z")).toBe(false);
  });
});

describe("withoutNulls", () => {
  it("hands back an object without nulls as it is, and copies one with a null anywhere in it", () => {
    const clean = { a: 1, list: [null, { b: "x" }], nested: { c: [1, 2] } };
    expect(withoutNulls(clean)).toBe(clean);
    const dirty = { a: 1, list: [{ b: "x" }, { b: null }] };
    const cleaned = withoutNulls(dirty);
    expect(cleaned).not.toBe(dirty);
    expect(cleaned).toEqual({ a: 1, list: [{ b: "x" }, {}] });
    expect(dirty.list[1]).toEqual({ b: null });
  });

  it("looks for nulls at any depth without recursion", () => {
    let deep: unknown = { a: 1 };
    for (let i = 0; i < 200_000; i++) deep = { child: deep };
    expect(withoutNulls(deep)).toBe(deep);
  });
});
