import { audit, cdrPricedBy } from "./cdr-audit.fixtures";
import { tariff, timeline } from "../tariff-engine.fixtures";

/**
 * The CDR audit on CDRs carrying the tariff examples (test/modules/tariff-engine.test.ts): a CDR priced by the
 * spec's rules is a match; one carrying the amount the Tariffs text states where the tariff tests name that text
 * inconsistent is a mismatch, and the explanation shows where the text went wrong.
 */
const at = (hhmm: string) => `2024-06-03T${String(Number(hhmm.slice(0, 2)) - 2).padStart(2, "0")}:${hhmm.slice(3)}:00Z`;

describe("CDR audit: CDRs priced with the tariff examples", () => {
  it.each([
    ["tariff_8_simple_025kwh.json", timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 20 }])],
    ["tariff_10_025kwh_parking_start.json", timeline("2024-06-03T08:00:00Z", [{ minutes: 60, kwh: 20 }], 40)],
    ["tariff_12_025kwh_min_price.json", timeline("2024-06-03T08:00:00Z", [{ minutes: 10, kwh: 1 }])],
    ["tariff_13_simple_3hour_5parking.json", timeline("2024-06-03T08:00:00Z", [{ minutes: 150, kwh: 30 }], 42)],
    ["tariff_14_step_size.json", timeline(at("16:35"), [{ minutes: 35, kwh: 7 }])],
  ])("%s: the engine's own CDR is a match", (file, session) => {
    const result = audit(cdrPricedBy(tariff(file), session), { timeZone: "Europe/Berlin" });
    expect(result.differences).toEqual([]);
    expect(result.verdict).toBe("match");
  });

  it("tariff_12: under 2 kWh the min_price is explained", () => {
    const result = audit(cdrPricedBy(tariff("tariff_12_025kwh_min_price.json"), timeline("2024-06-03T08:00:00Z", [{ minutes: 10, kwh: 1 }])));
    expect(result.explanation.at(-1)).toBe("total_cost: the lines add up to 0.25 excl. tax, bounded by the tariff's min_price to 0.50");
  });

  it("tariff_4 Saturday with the text's 12.28: mismatch on total_cost and total_time_cost, the weekend element at 1.25/h explains it", () => {
    const t = tariff("tariff_4_complex.json");
    const cdr = cdrPricedBy(t, timeline("2024-06-08T11:30:00Z", [{ minutes: 114, kwh: 20, current_a: 43 }], 71), {}, 43);
    // The text's table prices the 114 min at 1.20/h: 2.28 for TIME, 12.28 in total.
    const stated = { ...cdr, total_cost: { before_taxes: 12.28 }, total_time_cost: { before_taxes: 2.28, taxes: cdr.total_time_cost!.taxes } };
    const result = audit(stated, { timeZone: "Europe/Berlin" });
    expect(result.verdict).toBe("mismatch");
    expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([
      ["total_cost.before_taxes", 12.28, 12.375],
      ["total_cost.taxes", 0, 1.6],
      ["total_time_cost.before_taxes", 2.28, 2.375],
    ]);
    expect(result.differences[2].explanation).toBe(
      "TIME 2024-06-08T11:30:00Z to 2024-06-08T13:24:00Z (CHARGING): element #3 (restrictions min_current 32, day_of_week SATURDAY,SUNDAY), " +
        "1.25 per hour, consumed 6840 s, billed 6840 s, not rounded: step_size applies to the session's last time-based dimension, PARKING_TIME: 2.375 excl. tax, VAT 20 % 0.475 (tax_included NO) → total_time_cost",
    );
  });

  it("tariff_14 errata (19:40, 12 min charging, 20 min parked) with the text's 0.80: mismatch, parking rounded to 15 min at 1.00/h", () => {
    const cdr = cdrPricedBy(tariff("tariff_14_step_size.json"), timeline(at("19:40"), [{ minutes: 12, kwh: 2 }], 20));
    const result = audit({ ...cdr, total_cost: { before_taxes: 0.8 } }, { timeZone: "Europe/Berlin" });
    expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([["total_cost.before_taxes", 0.8, 0.73]]);
    expect(result.differences[0].explanation).toContain(
      "PARKING_TIME 2024-06-03T17:52:00Z to 2024-06-03T18:00:00Z (PARKING): element #1 (restrictions start_time 17:00, end_time 20:00), 1.00 per hour, " +
        "consumed 480 s, billed 900 s, step_size 900 s: the 480 s of PARKING_TIME rounded up to 1 × 900 s = 900 s, the surplus billed here: 0.25 excl. tax",
    );
  });
});
