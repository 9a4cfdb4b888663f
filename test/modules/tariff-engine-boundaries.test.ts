import { priceSession } from "../../plugins/tariffs/engine";
import type { Tariff } from "../../plugins/tariffs/model";
import { BERLIN, excl, incl, price, tariff, timeline } from "./tariff-engine.fixtures";

/** The tariff engine on hand-computed cases at the boundaries of restrictions, steps, taxes and tariff choice (the published examples: test/modules/tariff-engine.test.ts). */
describe("tariff engine: hand-computed cases at restriction boundaries", () => {
  const base = (elements: Tariff["elements"], extra: Partial<Tariff> = {}): Tariff => ({
    country_code: "NL",
    party_id: "GWY",
    id: "T1",
    currency: "EUR",
    elements,
    tax_included: "NO",
    last_updated: "2024-01-01T00:00:00Z",
    ...extra,
  });
  const AMSTERDAM = "Europe/Amsterdam";

  it("splits at a time-of-day boundary in the Location's time zone", () => {
    const t = base([
      { price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }], restrictions: { start_time: "07:00", end_time: "22:00" } },
      { price_components: [{ type: "ENERGY", price: 0.2, step_size: 1 }] },
    ]);
    // 21:30–22:30 Amsterdam in January (UTC+1) at 11 kW: 5.5 kWh × 0.30 + 5.5 kWh × 0.20 = 1.65 + 1.10 = 2.75
    const p = priceSession({ tariffs: [t], time_zone: AMSTERDAM, session: timeline("2024-01-15T20:30:00Z", [{ minutes: 60, kwh: 11 }]) });
    expect(excl(p)).toBe(2.75);
    expect(p.charging_periods.map((c) => [c.start_date_time, c.dimensions[0].volume])).toEqual([
      ["2024-01-15T20:30:00Z", 5.5],
      ["2024-01-15T21:00:00Z", 5.5],
    ]);
  });

  it("a time range over midnight (22:00–06:00) holds on both sides of it: one period", () => {
    const t = base([
      { price_components: [{ type: "TIME", price: 1, step_size: 1 }], restrictions: { start_time: "22:00", end_time: "06:00" } },
      { price_components: [{ type: "TIME", price: 3, step_size: 1 }] },
    ]);
    // 23:00–01:00 Amsterdam: 2 h × 1.00
    const p = priceSession({ tariffs: [t], time_zone: AMSTERDAM, session: timeline("2024-01-15T22:00:00Z", [{ minutes: 120, kwh: 10 }]) });
    expect(excl(p)).toBe(2);
    expect(p.charging_periods).toHaveLength(1);
  });

  it("an end_time of 00:00 means the end of the day", () => {
    const t = base([
      { price_components: [{ type: "TIME", price: 1, step_size: 1 }], restrictions: { start_time: "20:00", end_time: "00:00" } },
      { price_components: [{ type: "TIME", price: 3, step_size: 1 }] },
    ]);
    // 23:00–01:00 Amsterdam: 1 h × 1.00 before midnight, 1 h × 3.00 after
    const p = priceSession({ tariffs: [t], time_zone: AMSTERDAM, session: timeline("2024-01-15T22:00:00Z", [{ minutes: 120, kwh: 10 }]) });
    expect(excl(p)).toBe(4);
    expect(p.charging_periods.map((c) => c.start_date_time)).toEqual(["2024-01-15T22:00:00Z", "2024-01-15T23:00:00Z"]);
  });

  it("crossing local midnight switches day_of_week", () => {
    const t = base([
      { price_components: [{ type: "TIME", price: 0.5, step_size: 1 }], restrictions: { day_of_week: ["SATURDAY"] } },
      { price_components: [{ type: "TIME", price: 2, step_size: 1 }] },
    ]);
    // Friday 2024-01-19 23:00 → Saturday 01:00 Amsterdam: 1 h × 2.00 + 1 h × 0.50 = 2.50, split at 23:00Z
    const p = priceSession({ tariffs: [t], time_zone: AMSTERDAM, session: timeline("2024-01-19T22:00:00Z", [{ minutes: 120, kwh: 10 }]) });
    expect(excl(p)).toBe(2.5);
    expect(p.charging_periods.map((c) => c.start_date_time)).toEqual(["2024-01-19T22:00:00Z", "2024-01-19T23:00:00Z"]);
  });

  it("end_date is exclusive and start_date inclusive, in local dates", () => {
    const t = base([
      { price_components: [{ type: "ENERGY", price: 0.5, step_size: 1 }], restrictions: { end_date: "2024-03-01" } },
      { price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }], restrictions: { start_date: "2024-03-01" } },
    ]);
    // 2024-02-29 23:30 → 03-01 00:30 Berlin (UTC+1), 10 kWh/h: 5 × 0.50 + 5 × 0.30 = 4.00
    const p = price(t, timeline("2024-02-29T22:30:00Z", [{ minutes: 60, kwh: 10 }]));
    expect(excl(p)).toBe(4);
    expect(p.charging_periods[1].start_date_time).toBe("2024-02-29T23:00:00Z");
  });

  it("splits where the delivered energy reaches min_kwh / max_kwh", () => {
    const t = base([
      { price_components: [{ type: "ENERGY", price: 0.1, step_size: 1 }], restrictions: { max_kwh: 10 } },
      { price_components: [{ type: "ENERGY", price: 0.4, step_size: 1 }], restrictions: { min_kwh: 10 } },
    ]);
    // 20 kWh in 1 h, sampled only at both ends: 10 kWh are reached at 30 min. 10 × 0.10 + 10 × 0.40 = 5.00
    const p = price(t, timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 20 }]));
    expect(excl(p)).toBe(5);
    expect(p.charging_periods.map((c) => [c.start_date_time, c.dimensions[0].volume])).toEqual([
      ["2024-06-03T08:00:00Z", 10],
      ["2024-06-03T08:30:00Z", 10],
    ]);
  });

  it("max_duration is exclusive and min_duration inclusive: the element switches exactly at the threshold", () => {
    const t = base([
      { price_components: [{ type: "TIME", price: 0, step_size: 1 }], restrictions: { max_duration: 1800 } },
      { price_components: [{ type: "TIME", price: 6, step_size: 1 }], restrictions: { min_duration: 1800 } },
    ]);
    // 45 min: 30 min free, 15 min × 6.00/h = 1.50
    const p = price(t, timeline("2024-06-03T08:00:00Z", [{ minutes: 45, kwh: 5 }]));
    expect(excl(p)).toBe(1.5);
    expect(p.charging_periods.map((c) => c.start_date_time)).toEqual(["2024-06-03T08:00:00Z", "2024-06-03T08:30:00Z"]);
  });

  it("step_size of ENERGY as the PriceComponent note computes it: 115.2 Wh at 0.25/kWh", () => {
    const at = (step: number) =>
      excl(price(base([{ price_components: [{ type: "ENERGY", price: 0.25, step_size: step }] }]), timeline("2024-06-03T08:00:00Z", [{ minutes: 1, kwh: 0.1152 }])));
    expect(at(1)).toBe(0.029); // 116 Wh
    expect(at(25)).toBe(0.0313); // 125 Wh = 0.03125, 4 decimals
    expect(at(500)).toBe(0.125); // 500 Wh
  });

  it("the ENERGY step applies once to the session total, with the last element's step_size", () => {
    const t = base([
      { price_components: [{ type: "ENERGY", price: 0.2, step_size: 1000 }], restrictions: { max_kwh: 5 } },
      { price_components: [{ type: "ENERGY", price: 0.4, step_size: 100 }] },
    ]);
    // 5 kWh × 0.20 (not rounded at the switch) + 3.25 kWh: total 8.25 → 8.3 per 100 Wh, the extra 0.05 at 0.40: 1.00 + 1.32
    const p = price(t, timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 8.25 }]));
    expect(excl(p)).toBe(2.32);
  });

  it("max_price without after_taxes keeps the session's tax rate", () => {
    const t6 = tariff("tariff_6_025kwh_start_max_price.json");
    const t = { ...t6, max_price: { before_taxes: 10 } };
    // 13.00 / 14.35 → 10.00 excl.; incl. 14.35 × 10 / 13 = 11.0385
    const p = price(t, timeline("2019-05-06T08:00:00Z", [{ minutes: 90, kwh: 50 }]));
    expect([excl(p), incl(p)]).toEqual([10, 11.0385]);
  });

  it("tax_included YES: the price includes the VAT; N/A: no taxes", () => {
    const components = [{ type: "ENERGY" as const, price: 0.24, vat: 20, step_size: 1 }];
    const yes = price(base([{ price_components: components }], { tax_included: "YES" }), timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 10 }]));
    expect(yes.total_cost).toEqual({ before_taxes: 2, taxes: [{ name: "VAT", amount: 0.4 }] }); // 2.40 = 2.00 + 20 %
    const na = price(base([{ price_components: components }], { tax_included: "N/A" }), timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 10 }]));
    expect(na.total_cost).toEqual({ before_taxes: 2.4 });
  });

  it("an element bounded by current or power does not apply while the meter reports neither", () => {
    const t = base([
      { price_components: [{ type: "TIME", price: 1, step_size: 1 }], restrictions: { max_current: 32 } },
      { price_components: [{ type: "TIME", price: 4, step_size: 1 }] },
    ]);
    expect(excl(price(t, timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 7 }])))).toBe(4);
    expect(excl(price(t, timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 7, current_a: 16 }])))).toBe(1);
  });

  it("a dimension no element prices is free, and the period carries no tariff_id", () => {
    const t = base([{ price_components: [{ type: "TIME", price: 2, step_size: 1 }], restrictions: { start_time: "09:00", end_time: "10:00" } }]);
    // 08:00–10:00 Berlin: only 09:00–10:00 priced
    const p = price(t, timeline("2024-06-03T06:00:00Z", [{ minutes: 120, kwh: 7 }]));
    expect(excl(p)).toBe(2);
    expect(p.charging_periods.map((c) => c.tariff_id)).toEqual([undefined, "T1"]);
  });

  it("picks the tariff valid at the start, of the session's type before an untyped one", () => {
    const expired = base([{ price_components: [{ type: "TIME", price: 9, step_size: 1 }] }], { id: "OLD", end_date_time: "2024-01-01T00:00:00Z" });
    const future = base([{ price_components: [{ type: "TIME", price: 8, step_size: 1 }] }], { id: "NEW", start_date_time: "2025-01-01T00:00:00Z" });
    const cheap = base([{ price_components: [{ type: "TIME", price: 1, step_size: 1 }] }], { id: "CHEAP", type: "PROFILE_CHEAP" });
    const any = base([{ price_components: [{ type: "TIME", price: 2, step_size: 1 }] }], { id: "ANY" });
    const session = timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 7 }]);
    const tariffs = [expired, future, cheap, any];
    expect(priceSession({ tariffs, time_zone: BERLIN, session }).tariff?.id).toBe("ANY");
    expect(priceSession({ tariffs, time_zone: BERLIN, session, tariff_type: "PROFILE_CHEAP" }).tariff?.id).toBe("CHEAP");
    expect(priceSession({ tariffs, time_zone: BERLIN, session, tariff_type: "PROFILE_CHEAP" }).total_cost.before_taxes).toBe(1);
  });

  it("on the day daylight saving time starts, local times take the new offset", () => {
    const t = base([
      { price_components: [{ type: "TIME", price: 1, step_size: 1 }], restrictions: { end_time: "12:00" } },
      { price_components: [{ type: "TIME", price: 3, step_size: 1 }] },
    ]);
    // 2024-03-31, Berlin switches to UTC+2 at 01:00Z: 12:00 local is 10:00Z. 09:00Z–11:00Z: 1 h × 1.00 + 1 h × 3.00
    const p = price(t, timeline("2024-03-31T09:00:00Z", [{ minutes: 120, kwh: 10 }]));
    expect(excl(p)).toBe(4);
    expect(p.charging_periods[1].start_date_time).toBe("2024-03-31T10:00:00Z");
  });

  it("elements with a Bookings restriction never price a session (they price bookings only: tariff-engine-bookings.test.ts)", () => {
    const t = base([
      { price_components: [{ type: "TIME", price: 9, step_size: 1 }], restrictions: { booking: "BOOKING" } },
      { price_components: [{ type: "TIME", price: 1, step_size: 1 }] },
    ]);
    expect(excl(price(t, timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 7 }])))).toBe(1);
  });

  it("refuses an input with neither a session nor a reservation", () => {
    expect(() => priceSession({ tariffs: [], time_zone: BERLIN })).toThrow(/session, a reservation or both/);
  });
});
