import path from "node:path";
import { audit, exampleCdr, versionOf } from "./cdr-audit.fixtures";

/**
 * The CDR audit on the published examples: every CDR example (each embeds its tariff; the list is the one
 * test/modules/tariff-engine.test.ts checks is complete), and CDRs carrying the amounts the Tariffs text states
 * for the tariff examples, where the tariff engine tests name the text inconsistent with the spec's rules.
 */
const CDR_EXAMPLES = [
  "2.1.1-d2_inline-extracted/mod_cdrs_01_example_of_a_cdr.json",
  "2.2.1-d2_release-2.2.1-bugfixes/cdr_example.json",
  "2.2.1/cdr_example.json",
  "2.2/cdr_example.json",
  "2.3.0-bookings-1.0/cdr_example.json",
  "2.3.0-bookings-1.1/cdr_example.json",
  "2.3.0-ed2-payments/cdr_example.json",
  "2.3.0-ed2_core/cdr_example.json",
  "2.3.0/cdr_example.json",
  "2.3.0_develop-2.3.0-booking/cdr_example.json",
  "2.3.0_release-2.3.0-bugfixes/cdr_example.json",
];

describe("CDR audit: the published CDR examples", () => {
  it.each(CDR_EXAMPLES.map((file) => ({ file })))("$file: match, with the step_size rounding explained", ({ file }) => {
    const cdr = exampleCdr(file);
    const version = versionOf(path.dirname(file));
    const result = audit(cdr, { version });
    // The 2.1.1 tariff (translated up) has no VAT rate: 2.1.1 costs exclude VAT.
    const tax = version === "2.1.1" ? ["no VAT", "0.00"] : [`VAT 10 % 0.40 (tax_included ${cdr.tariffs![0].tax_included ?? "NO"})`, "0.40"];
    expect(result.differences).toEqual([]);
    expect(result.verdict).toBe("match");
    expect(result.tariff).toEqual({ id: "12", source: "embedded" });
    // 1:58:23 = 7103 s of TIME, rounded up to 24 steps of 300 s = 2 h, at 2.00/h = 4.00; VAT 10 % = 0.40.
    expect(result.explanation).toEqual([
      `TIME ${cdr.start_date_time} to ${cdr.end_date_time} (CHARGING): element #0 (no restrictions), 2.00 per hour, consumed 7103 s, ` +
        "billed 7200 s, step_size 300 s: the 7103 s of TIME rounded up to 24 × 300 s = 7200 s, the surplus billed here: 4.00 excl. tax, " +
        `${tax[0]} → total_time_cost`,
      `total_cost: the lines add up to 4.00 excl. tax, ${tax[1]} tax`,
    ]);
  });

  it("the 2.3.0 example's tariff lacks tax_included: read as NO, and noted", () => {
    expect(audit(exampleCdr("2.3.0/cdr_example.json")).notes).toContain(
      "tariff 12 has no tax_included (required in 2.3.0); its prices are read as excluding taxes (NO)",
    );
  });
});
