import { clone, downTo, example211, example221, example230, getCdr, getPath, type Json, local, post, PUBLIC_URL, readExample, receiverOptions, upFrom } from "./cdrs.fixtures";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { startHarness, type Harness } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { cdrType, CDR_TRANSLATION_LOSSES } from "../../plugins/cdrs/translate";
import { silentTranslation } from "../../core/model/object-type";
import { type TranslationContext } from "../../core/contract/object-type";
import type { VersionNumber } from "../../core/protocol/types";

/**
 * The CDRs module through HTTP: the published examples and version translation
 * (2.3.0 / 2.2.1 / 2.1.1) here; receiver POST (Location header, immutability,
 * credit CDRs), GET, validation and ownership in cdrs-receiver.test.ts, the
 * sender list's pagination in cdrs-sender.test.ts, 2.1.1 in cdrs-211.test.ts.
 */

describe("CDRs: published examples", () => {
  // NOTICE.md lists no CDR example as defective; the 2.3.0 one only has a NOTE
  // (embedded tariff without tax_included), which the CDR schema tolerates.
  const SKIPPED: Record<string, string> = {};
  const cases = ["2.2.1", "2.3.0"].flatMap((v) =>
    readdirSync(path.join(EXAMPLES, v))
      .filter((f) => f.startsWith("cdr"))
      .map((file) => ({ version: v as VersionNumber, file })),
  );

  it("finds the CDR example of each version and skips none", () => {
    expect(cases.map((c) => `${c.version}/${c.file}`)).toEqual(["2.2.1/cdr_example.json", "2.3.0/cdr_example.json"]);
    expect(Object.keys(SKIPPED)).toEqual([]);
    const index = readFileSync(path.join(EXAMPLES, "NOTICE.md"), "utf8");
    expect(index).toMatch(/\| cdr_example\.json \|[^\n]*NOTE: embedded Tariff lacks tax_included/);
  });

  describe.each(cases)("$version/$file", ({ version, file }) => {
    let h: Harness;
    const other: VersionNumber = version === "2.3.0" ? "2.2.1" : "2.3.0";
    beforeAll(async () => {
      h = await startHarness(receiverOptions());
    });
    afterAll(() => h.close());

    it("is accepted by POST, answered 201 with a Location where GET returns it unchanged", async () => {
      const example = readExample(version, file);
      const res = await post(h, version, example);
      expect(res.body.status_code).toBe(1000);
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`${PUBLIC_URL}/ocpi/${version}/receiver/cdrs/BE/BEC/12345`);
      const got = await getPath(h, local(res.headers.location));
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(example);
    });

    it(`comes back from GET in ${other} as the translator makes it`, async () => {
      // posted under an id of its own: the test above posts the example's
      const example = { ...readExample(version, file), id: "BACK1" };
      expect((await post(h, version, example)).status).toBe(201);
      const canonical = version === "2.3.0" ? example : upFrom(version, example);
      const expected = other === "2.3.0" ? canonical : downTo(other, canonical);
      const got = await getCdr(h, other, "BE/BEC", "BACK1");
      expect(got.body.data).toEqual(expected);
    });
  });

  it("translates the 2.2.1 example's prices and tariff limits to 2.3.0 shapes", () => {
    const up = upFrom("2.2.1", example221());
    expect(up.total_cost).toEqual({ before_taxes: 4, taxes: [{ name: "VAT", amount: 0.4 }] });
    expect(up.tariffs[0].tax_included).toBe("NO");
    const withLimits = { ...example221(), tariffs: [{ ...example221().tariffs[0], min_price: { excl_vat: 1, incl_vat: 1.21 } }] };
    expect(upFrom("2.2.1", withLimits).tariffs[0].min_price).toEqual({ before_taxes: 1, after_taxes: 1.21 });
    expect(downTo("2.2.1", upFrom("2.2.1", withLimits))).toEqual(withLimits);
  });
});

describe("CDRs: translation losses", () => {
  /** A canonical CDR using everything 2.2.1 and 2.1.1 cannot carry. */
  const rich = (): Json => {
    const c = clone(example230());
    Object.assign(c, {
      session_id: "S1",
      booking_id: "B1",
      authorization_reference: "A1",
      auth_method: "COMMAND",
      signed_data: { encoding_method: "OCMF", signed_values: [{ nature: "Start", plain_data: "p", signed_data: "s" }] },
      total_fixed_cost: { before_taxes: 1, taxes: [{ name: "GST", amount: 0.1, percentage: 10 }] },
      total_energy_cost: { before_taxes: 1, taxes: [{ name: "GST", amount: 0.1 }, { name: "PST", amount: 0.1 }] },
      total_parking_cost: { before_taxes: 1, taxes: [{ name: "X", amount: 0.1 }] },
      total_reservation_cost: { before_taxes: 1, taxes: [{ name: "X", amount: 0.1 }] },
      invoice_reference_id: "I1",
      credit: true,
      credit_reference_id: "0",
      home_charging_compensation: false,
    });
    c.total_cost.taxes[0].name = "GST";
    c.total_time_cost.taxes[0].name = "GST";
    c.cdr_token.type = "EMAID";
    c.charging_periods[0].dimensions.push({ type: "RESERVATION_OVERTIME", volume: 1 });
    c.tariffs[0] = {
      ...c.tariffs[0],
      type: "REGULAR",
      tax_included: "YES",
      min_price: { before_taxes: 1 },
      max_price: { before_taxes: 9 },
      start_date_time: "2024-01-01T00:00:00Z",
      end_date_time: "2025-01-01T00:00:00Z",
      preauthorize_amount: 20,
    };
    return c;
  };

  const droppedBy = (version: VersionNumber, canonical: Json): string[] => {
    const fields: string[] = [];
    const tx: TranslationContext = { ...silentTranslation(), dropped: (f) => void fields.push(f) };
    cdrType.down(canonical as any, version, tx);
    return [...new Set(fields)].sort();
  };

  it.each(["2.2.1", "2.1.1"] as VersionNumber[])("every field dropped going down to %s is listed in CDR_TRANSLATION_LOSSES", (version) => {
    const dropped = droppedBy(version, rich());
    expect(dropped.length).toBeGreaterThan(3);
    const listed = CDR_TRANSLATION_LOSSES.filter((l) => l.versions.includes(version)).map((l) => l.field);
    for (const field of dropped) expect(listed).toContain(field);
  });

  it("2.1.1 up drops FLAT dimensions and says so", () => {
    const fields: string[] = [];
    const wire = example211();
    wire.charging_periods[0].dimensions.push({ type: "FLAT", volume: 1 });
    const up = cdrType.up(wire, "2.1.1", { ...silentTranslation(), dropped: (f) => void fields.push(f) }) as Json;
    expect(up.charging_periods[0].dimensions).toEqual([{ type: "TIME", volume: 1.973 }]);
    expect(fields).toContain("charging_periods.dimensions");
    expect(CDR_TRANSLATION_LOSSES.map((l) => l.field)).toContain("charging_periods.dimensions");
  });

  it("2.2.1 down sends EMAID tokens as OTHER and maps PriceLimit to Price", () => {
    const down = downTo("2.2.1", rich());
    expect(down.cdr_token.type).toBe("OTHER");
    expect(down.tariffs[0].min_price).toEqual({ excl_vat: 1 });
    expect(down.tariffs[0]).not.toHaveProperty("tax_included");
    expect(down).not.toHaveProperty("booking_id");
    expect(down.charging_periods[0].dimensions.map((d: Json) => d.type)).toEqual(["TIME"]);
  });
});
