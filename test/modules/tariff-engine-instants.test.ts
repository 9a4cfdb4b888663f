import { instantMs } from "../../plugins/tariffs/engine";

/**
 * The tariff engine's reading of an instant's text (plugins/tariffs/engine/instant.ts) is Date.parse's for every text,
 * but one without `Z`, which OCPI reads as UTC (Date.parse: local time).
 */
describe("instantMs", () => {
  const same = (text: string) => expect([text, instantMs(text)]).toEqual([text, Date.parse(text)]);

  it("reads every day, hour and minute of a year in the form OCPI parties send as Date.parse does", () => {
    for (let ms = Date.parse("2024-01-01T00:00:00Z"); ms < Date.parse("2025-01-01T00:00:00Z"); ms += 37 * 60 * 1000 + 13 * 1000)
      same(new Date(ms).toISOString().replace(".000Z", "Z").replace(/\.\d{3}Z$/, "Z"));
  });

  it("reads what lies outside that form, or past the days and hours it reads itself, as Date.parse does (NaN for no instant)", () => {
    for (const text of [
      "2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "2024-02-30T00:00:00Z", "2024-04-31T00:00:00Z", "2024-12-31T23:59:59Z", "2024-13-01T00:00:00Z",
      "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-10T24:00:00Z", "2024-01-10T23:60:00Z", "2024-01-10T23:59:60Z", "0099-01-10T10:00:00Z",
      "0100-01-10T10:00:00Z", "2024-01-10T10:00:00.123Z", "2024-01-10T10:00:00+02:00", "2024-01-10T10:00:00z", "2024-01-10 10:00:00Z",
      "2024-01-1OT10:00:00Z", "2024-01-10T1a:00:00Z", "+02024-01-10T10:00:0Z", "2024/01/10T10:00:00Z", "", "not a date",
    ])
      same(text);
  });

  it("reads a text without Z as UTC (OCPI 2.3.0 Types, DateTime), whatever the process's time zone", () => {
    expect(instantMs("2024-01-10T10:00:00")).toBe(Date.parse("2024-01-10T10:00:00Z"));
    expect(instantMs("2024-01-10T10:00:00.5")).toBe(Date.parse("2024-01-10T10:00:00.500Z"));
  });
});
