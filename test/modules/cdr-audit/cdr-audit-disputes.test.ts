import { audit, cdrPricedBy, exampleCdr } from "./cdr-audit.fixtures";
import { tariff, timeline } from "../tariff-engine.fixtures";
import { amountsOf } from "../../../plugins/cdrs/audit/credit-check";
import type { Cdr } from "../../../plugins/cdrs/model";
import type { Tariff } from "../../../plugins/tariffs/model";
import type { Session } from "../../../plugins/sessions/model";

/** Hand-made disputes: what a CPO got wrong, and what the audit says about it. */
const example = (): Cdr => exampleCdr("2.3.0/cdr_example.json");
const fields = (cdr: Cdr, ctx = {}) => audit(cdr, ctx).differences.map((d) => [d.field, d.cdr, d.expected]);

describe("CDR audit: disputes", () => {
  it("wrong step_size rounding: 7103 s billed by the second (3.95) instead of 24 × 300 s (4.00)", () => {
    const cdr = { ...example(), total_cost: { before_taxes: 3.95, taxes: [{ name: "VAT", amount: 0.395 }] }, total_time_cost: { before_taxes: 3.95, taxes: [{ name: "VAT", amount: 0.395 }] } };
    const result = audit(cdr);
    expect(result.verdict).toBe("mismatch");
    expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([
      ["total_cost.before_taxes", 3.95, 4],
      ["total_time_cost.before_taxes", 3.95, 4],
    ]);
    expect(result.differences[1].explanation).toContain("consumed 7103 s, billed 7200 s, step_size 300 s: the 7103 s of TIME rounded up to 24 × 300 s = 7200 s");
  });

  it("wrong time dimension: 42 min parked billed as charging TIME at 3.00/h instead of PARKING_TIME at 5.00/h", () => {
    const good = cdrPricedBy(tariff("tariff_13_simple_3hour_5parking.json"), timeline("2024-06-03T08:00:00Z", [{ minutes: 150, kwh: 30 }], 42));
    // 192 min × 3.00/h = 9.60 (+10 % = 10.56), no parking
    const { total_parking_cost: _parking, ...rest } = good;
    const wrong = { ...rest, total_time_cost: { before_taxes: 9.6, taxes: [{ name: "VAT", amount: 0.96 }] }, total_cost: { before_taxes: 9.6, taxes: [{ name: "VAT", amount: 0.96 }] } } as Cdr;
    const result = audit(wrong);
    expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([
      ["total_cost.before_taxes", 9.6, 11.25],
      ["total_cost.taxes", 0.96, 1.5],
      ["total_time_cost.before_taxes", 9.6, 7.5],
      ["total_time_cost.taxes", 0.96, 0.75],
      ["total_parking_cost.before_taxes", null, 3.75],
      ["total_parking_cost.taxes", null, 0.75],
    ]);
    expect(result.differences[4].explanation).toBe(
      "PARKING_TIME 2024-06-03T10:30:00Z to 2024-06-03T11:12:00Z (PARKING): element #0 (no restrictions), 5.00 per hour, consumed 2520 s, billed 2700 s, " +
        "step_size 300 s: the 2520 s of PARKING_TIME rounded up to 9 × 300 s = 2700 s, the surplus billed here: 3.75 excl. tax, VAT 20 % 0.75 (tax_included NO) → total_parking_cost",
    );
  });

  it("missing tax: total_cost without its 10 % VAT", () => {
    const result = audit({ ...example(), total_cost: { before_taxes: 4 } });
    expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([["total_cost.taxes", 0, 0.4]]);
    expect(result.differences[0].explanation).toMatch(/^the CDR lists no taxes; TIME .* VAT 10 % 0.40 \(tax_included NO\) → total_time_cost; total_cost: the lines add up to 4.00 excl. tax, 0.40 tax$/);
  });

  it("tolerance per currency: 0.005 off is a match at 0.01, a mismatch at 0.001", () => {
    const cdr = { ...example(), total_cost: { before_taxes: 4.005, taxes: [{ name: "VAT", amount: 0.4 }] } };
    expect(audit(cdr).verdict).toBe("match");
    expect(fields(cdr, { tolerance: 0.001 })).toEqual([["total_cost.before_taxes", 4.005, 4]]);
  });

  describe("credit CDRs", () => {
    const original = example();
    const creditOf = (scale: number): Cdr => ({
      ...original,
      id: `${original.id}-C`,
      credit: true,
      credit_reference_id: original.id,
      total_cost: { before_taxes: -4 * scale, taxes: [{ name: "VAT", amount: -0.4 * scale }] },
      total_time_cost: { before_taxes: -4 * scale, taxes: [{ name: "VAT", amount: -0.4 * scale }] },
    });

    it("a credit that cancels its CDR is a match", () => {
      const result = audit(creditOf(1), { original: amountsOf(original) });
      expect(result.verdict).toBe("match");
      expect(result.explanation).toEqual([`credit CDR of ${original.id}: its totals are checked to cancel that CDR's, not re-priced`]);
    });

    it("a credit that does not cancel (3.50 of 4.00): mismatch, each total named", () => {
      const result = audit(creditOf(0.875), { original: amountsOf(original) });
      expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([
        ["credit.total_cost.before_taxes", "-3.50", "-4.00"],
        ["credit.total_cost.after_taxes", "-3.85", "-4.40"],
        ["credit.total_time_cost.before_taxes", "-3.50", "-4.00"],
        ["credit.total_time_cost.after_taxes", "-3.85", "-4.40"],
      ]);
      expect(result.differences[0].explanation).toBe(`CDR ${original.id} has total_cost 4.00 before taxes; its credit must be its opposite, they add up to 0.50`);
    });

    it("a credit whose original is not held: mismatch naming it", () => {
      expect(fields(creditOf(1))).toEqual([["credit_reference_id", original.id, null]]);
    });
  });

  describe("unpriceable", () => {
    it("no tariff embedded and the one the periods name not held", () => {
      const result = audit({ ...example(), tariffs: undefined });
      expect(result.verdict).toBe("unpriceable");
      expect(result.reason).toBe("tariff missing: the CDR embeds no tariffs and tariff 12 is not held");
    });

    it("the tariff the periods name, held (pulled or ours): priced with it", () => {
      const cdr = example();
      const result = audit({ ...cdr, tariffs: undefined }, { heldTariffs: [{ ...(cdr.tariffs![0] as unknown as Tariff), tax_included: "NO" }] });
      expect([result.verdict, result.tariff]).toEqual(["match", { id: "12", source: "held" }]);
    });

    it("a current restriction, and charging periods that give no current", () => {
      const cdr = cdrPricedBy(tariff("tariff_4_complex.json"), timeline("2024-06-03T07:30:00Z", [{ minutes: 165, kwh: 10, current_a: 16 }], 42));
      expect(audit(cdr, { timeZone: "Europe/Berlin" }).reason).toBe(
        "restriction not supported: element #1 has max_current, and the CDR's charging periods give no current",
      );
    });

    it("a restriction the engine does not know, periods naming two tariffs, a tariff in another currency", () => {
      const cdr = example();
      const embedded = cdr.tariffs![0] as unknown as Tariff;
      const unknown = { ...embedded, elements: [{ ...embedded.elements[0], restrictions: { min_soc: 20 } }] };
      expect(audit({ ...cdr, tariffs: [unknown as never] }).reason).toBe("restriction not supported: element #0 has restriction min_soc");
      const two = { ...cdr, charging_periods: [...cdr.charging_periods, { ...cdr.charging_periods[0], start_date_time: "2024-12-05T18:00:00Z", tariff_id: "13" }] };
      expect(audit(two).reason).toBe("restriction not supported: the charging periods name 2 tariffs (12, 13); a session is priced by one");
      expect(audit({ ...cdr, currency: "CHF" }).reason).toBe("tariff 12 is in EUR, the CDR in CHF");
    });

    it("a local-time restriction without the Location's time zone", () => {
      const cdr = cdrPricedBy(tariff("tariff_14_step_size.json"), timeline("2024-06-03T14:35:00Z", [{ minutes: 35, kwh: 7 }]));
      expect(audit(cdr).reason).toBe("restriction not supported: element #0 has start_time (local time), and the Location's time_zone is not held");
    });
  });

  describe("the tariff in the CDR against the one the CPO published", () => {
    const cdr = example();
    const published = (price: number, last_updated: string): Tariff =>
      ({ ...(cdr.tariffs![0] as unknown as Tariff), elements: [{ price_components: [{ type: "TIME", price, vat: 10, step_size: 300 }] }], last_updated });

    it("published before the session at 2.50/h, embedded at 2.00/h: mismatch, re-priced with the published one", () => {
      const result = audit(cdr, { heldTariffs: [published(2.5, "2024-05-02T14:15:01Z")] });
      expect([result.verdict, result.tariff]).toEqual(["mismatch", { id: "12", source: "held" }]);
      expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([
        ["tariffs[12]", "2024-05-02T14:15:01Z", "2024-05-02T14:15:01Z"],
        ["total_cost.before_taxes", 4, 5],
        ["total_cost.taxes", 0.4, 0.5],
        ["total_time_cost.before_taxes", 4, 5],
        ["total_time_cost.taxes", 0.4, 0.5],
      ]);
      expect(result.differences[0].explanation).toBe(
        "the CDR's tariff 12 is not the one published (last_updated 2024-05-02T14:15:01Z, before the session): " +
          'element #0 {"price_components":[{"type":"TIME","price":2,"vat":10,"step_size":300}]} in the CDR, ' +
          '{"price_components":[{"type":"TIME","price":2.5,"vat":10,"step_size":300}]} published; the amounts are re-priced with the published one',
      );
    });

    it("the same, or changed only after the session started: match", () => {
      expect(audit(cdr, { heldTariffs: [published(2, "2024-05-02T14:15:01Z")] }).verdict).toBe("match");
      const later = audit(cdr, { heldTariffs: [published(2.5, "2025-01-01T00:00:00Z")] });
      expect(later.verdict).toBe("match");
      expect(later.notes).toContain("tariff 12 was changed after the session started (last_updated 2025-01-01T00:00:00Z): the CDR's own copy is used");
    });
  });

  it("no dispute: a CDR whose times are cut to the second and whose last period starts within its last second", () => {
    // as a CPO backend writes a sub-second session: start and end in whole seconds, the period with its milliseconds
    const t = tariff("tariff_8_simple_025kwh.json");
    const cdr = cdrPricedBy(t, timeline("2024-06-03T08:00:00Z", [{ minutes: 1, kwh: 1.5 }]));
    const cut = { ...cdr, start_date_time: "2024-06-03T08:00:00Z", end_date_time: "2024-06-03T08:00:00Z", total_time: 0, charging_periods: [{ ...cdr.charging_periods[0], start_date_time: "2024-06-03T08:00:00.081Z" }] };
    expect(audit(cut).differences).toEqual([]);
  });

  it("consistency with its Session: energy, end and token", () => {
    const cdr = { ...example(), session_id: "SES-1" };
    const session = {
      id: cdr.session_id,
      start_date_time: cdr.start_date_time,
      end_date_time: "2015-06-29T23:40:00Z",
      kwh: 14,
      cdr_token: { ...cdr.cdr_token, uid: "OTHER" },
      authorization_reference: cdr.authorization_reference,
    } as unknown as Session;
    const result = audit(cdr, { session });
    expect(result.differences.map((d) => [d.field, d.cdr, d.expected])).toEqual([
      ["total_energy", cdr.total_energy, 14],
      ["end_date_time", cdr.end_date_time, "2015-06-29T23:40:00Z"],
      ["cdr_token.uid", cdr.cdr_token.uid, "OTHER"],
    ]);
    expect(audit(cdr).notes).toContain("Session SES-1 is not held: not compared");
  });
});
