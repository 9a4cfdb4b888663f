import type { Harness } from "../support/module-harness";
import { tariffType, TARIFFS_TRANSLATION_LOSSES } from "../../plugins/tariffs/translate";
import type { Tariff } from "../../plugins/tariffs/model";
import { type Json, readExample, recordingTx, startTariffsModule, tariffRequests } from "./tariffs.fixtures";

describe("tariffs module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTariffsModule();
  });
  afterAll(() => h.close());
  const { receiver, put, get, del } = tariffRequests(() => h);

  describe("2.1.1", () => {
    const inline = (file: string) => readExample("2.1.1-d2_inline-extracted", file);
    const files = [
      "mod_tariffs_03_simple_tariff_example_2_euro_per_hour.json",
      "mod_tariffs_04_simple_tariff_example_with_alternative_multi_langu.json",
      "mod_tariffs_05_simple_tariff_example_with_alternative_url.json",
      "mod_tariffs_06_complex_tariff_example.json",
      "mod_tariffs_07_free_of_charge_tariff_example.json",
    ];

    it.each(files)("%s: PUT and GET through the 2.1.1 receiver; 2.3.0 sees owner and tax_included", async (file) => {
      const example = inline(file);
      await del("2.1.1", example.id);
      expect((await put("2.1.1", example)).status).toBe(201);
      expect((await get("2.1.1", example.id)).body.data).toEqual(example);
      const canonical = (await get("2.3.0", example.id)).body.data;
      expect(canonical).toEqual({ ...example, country_code: "DE", party_id: "ALL", tax_included: "NO" });
      await del("2.1.1", example.id);
    });

    it("PATCH (2.1.1 only) changes the given fields; the spec's 'change tariff to 2,50' fragment", async () => {
      const base = inline("mod_tariffs_03_simple_tariff_example_2_euro_per_hour.json");
      await put("2.1.1", base);
      const fragment = inline("mod_tariffs_02_example_change_tariff_to_2_50.json");
      const res = await h.http.patch(receiver("2.1.1", "DE", "ALL", "12")).set("Authorization", h.auth).send(fragment);
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(1000);
      const after = (await get("2.1.1", "12")).body.data;
      expect(after).toEqual({ ...base, elements: fragment.elements });
      expect(after.elements[0].price_components[0].price).toBe(2.5);
    });

    it("PATCH that would leave an invalid tariff → 2001, nothing changed; unknown tariff → 404", async () => {
      await put("2.1.1", inline("mod_tariffs_03_simple_tariff_example_2_euro_per_hour.json"));
      const before = (await get("2.1.1", "12")).body.data;
      const bad = await h.http.patch(receiver("2.1.1", "DE", "ALL", "12")).set("Authorization", h.auth).send({ elements: [] });
      expect(bad.body.status_code).toBe(2001);
      expect(bad.body.status_message).toContain("/elements");
      expect((await get("2.1.1", "12")).body.data).toEqual(before);
      const unknown = await h.http.patch(receiver("2.1.1", "DE", "ALL", "NONE")).set("Authorization", h.auth).send({ currency: "USD" });
      expect(unknown.status).toBe(404);
      await del("2.1.1", "12");
    });

    it("translating a 2.3.0 tariff down drops 2.2+ fields, reservation elements and reports them", async () => {
      const tx = recordingTx();
      const complex = readExample("2.3.0", "tariff_4_complex.json") as Tariff;
      const down = tariffType.down(complex, "2.1.1", tx) as Json;
      expect(down).not.toHaveProperty("type");
      expect(down).not.toHaveProperty("country_code");
      expect(down.elements[1]).toEqual({ price_components: [{ type: "TIME", price: 1, step_size: 900 }], restrictions: {} });
      expect(tx.fields).toEqual(expect.arrayContaining(["type", "elements.price_components.vat", "elements.restrictions.max_current"]));

      const reservation = readExample("2.3.0", "tariff_15_reservation_5_euro_per_hour.json") as Tariff;
      const plain = tariffType.down(reservation, "2.1.1", tx) as Json;
      expect(plain.elements.length).toBe(reservation.elements.length - reservation.elements.filter((e) => e.restrictions?.reservation).length);
      expect(tx.fields).toContain("elements.restrictions.reservation");
      const listed = TARIFFS_TRANSLATION_LOSSES.map((l) => l.field);
      for (const field of tx.fields) expect(listed).toContain(field);
    });
  });
});
