import { startHarness, type Harness } from "../support/module-harness";
import { TariffsPlugin } from "../../plugins/tariffs/module";
import { localTariffs } from "../../adapters/local/tariffs";
import { type Json, PARTNER_ROLES, readExample, startTariffsModule, tariffRequests } from "./tariffs.fixtures";

describe("tariffs module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startTariffsModule();
  });
  afterAll(() => h.close());
  const { receiver, put, get, del, list } = tariffRequests(() => h);

  describe("receiver DELETE", () => {
    const example = () => readExample("2.3.0", "tariff_1_simple_2hour.json");

    it("unknown tariff → HTTP 404", async () => {
      const res = await del("2.3.0", "NOPE");
      expect(res.status).toBe(404);
      expect(res.body.status_code).toBe(2001);
    });

    it("existing tariff → data null, then GET 404 and a second DELETE 404", async () => {
      await put("2.3.0", example());
      const res = await del("2.3.0", "12");
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status_code: 1000, data: null });
      expect((await get("2.3.0", "12")).status).toBe(404);
      expect((await get("2.2.1", "12")).status).toBe(404);
      expect((await del("2.2.1", "12")).status).toBe(404);
    });

    it("is there in 2.2.1 and 2.1.1 too", async () => {
      await put("2.2.1", readExample("2.2.1", "tariff_1_simple_2hour.json"));
      expect((await del("2.1.1", "12")).status).toBe(200);
      expect((await get("2.2.1", "12")).status).toBe(404);
    });
  });

  describe("receiver rules", () => {
    const base = () => ({ ...readExample("2.3.0", "tariff_8_simple_025kwh.json"), id: "BASE" });
    beforeEach(async () => {
      expect((await put("2.3.0", base())).status).toBeLessThan(300);
    });
    afterAll(() => del("2.3.0", "BASE"));

    const malformed: [string, (t: Json) => unknown, string][] = [
      ["bad HH:MM in restrictions", (t) => (t.elements[0].restrictions = { start_time: "24:00" }), "/elements/0/restrictions/start_time"],
      ["bad YYYY-MM-DD in restrictions", (t) => (t.elements[0].restrictions = { start_date: "2024-2-30" }), "/elements/0/restrictions/start_date"],
      ["bad day_of_week", (t) => (t.elements[0].restrictions = { day_of_week: ["MONDAYS"] }), "/elements/0/restrictions/day_of_week/0"],
      ["missing elements", (t) => delete t.elements, "/elements"],
      ["empty elements", (t) => (t.elements = []), "/elements"],
      ["empty price_components", (t) => (t.elements[0].price_components = []), "/elements/0/price_components"],
      ["bad currency", (t) => (t.currency = "euro"), "/currency"],
      ["step_size not an integer", (t) => (t.elements[0].price_components[0].step_size = 1.5), "/elements/0/price_components/0/step_size"],
      ["price of the wrong type", (t) => (t.elements[0].price_components[0].price = "0.25"), "/elements/0/price_components/0/price"],
      ["bad TariffDimensionType", (t) => (t.elements[0].price_components[0].type = "KWH"), "/elements/0/price_components/0/type"],
      ["missing tax_included", (t) => delete t.tax_included, "/tax_included"],
      ["bad tax_included", (t) => (t.tax_included = "MAYBE"), "/tax_included"],
      ["bad TariffType (closed enum in 2.3.0)", (t) => (t.type = "CHEAP"), "/type"],
      ["bad reservation", (t) => (t.elements[0].restrictions = { reservation: "BOOKED" }), "/elements/0/restrictions/reservation"],
      ["bad date", (t) => (t.last_updated = "2024-13-01T00:00:00Z"), "/last_updated"],
      ["offset in a DateTime", (t) => (t.end_date_time = "2024-01-01T00:00:00+01:00"), "/end_date_time"],
      ["too-long alt text", (t) => (t.tariff_alt_text = [{ language: "en", text: "x".repeat(513) }]), "/tariff_alt_text/0/text"],
      ["min_price lacking before_taxes", (t) => (t.min_price = { after_taxes: 1 }), "/min_price/before_taxes"],
      ["2.2.1 Price as min_price", (t) => (t.min_price = { excl_vat: 1 }), "/min_price/before_taxes"],
      ["missing currency", (t) => delete t.currency, "/currency"],
    ];

    it.each(malformed)("2.3.0 %s → 2001 naming the field, nothing changed", async (_name, spoil, pointer) => {
      const tariff = structuredClone(base()) as Json;
      tariff.last_updated = "2030-01-01T00:00:00Z";
      spoil(tariff);
      const res = await put("2.3.0", tariff);
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain(`${pointer}:`);
      expect((await get("2.3.0", "BASE")).body.data).toEqual(base());
    });

    it("names every violating field at once", async () => {
      const tariff = { ...base(), currency: "eu", tax_included: "SOMETIMES" };
      const res = await put("2.3.0", tariff);
      expect(res.body.status_message).toContain("/currency:");
      expect(res.body.status_message).toContain("/tax_included:");
    });

    it.each([
      ["missing excl_vat in a 2.2.1 Price", (t: Json) => (t.max_price = { incl_vat: 2 }), "/max_price/excl_vat"],
      ["bad end_time", (t: Json) => (t.elements[0].restrictions = { end_time: "9:00" }), "/elements/0/restrictions/end_time"],
      ["min_duration not an integer", (t: Json) => (t.elements[0].restrictions = { min_duration: 60.5 }), "/elements/0/restrictions/min_duration"],
    ])("2.2.1 %s → 2001 naming the field", async (_name, spoil, pointer) => {
      const tariff = { ...readExample("2.2.1", "tariff_8_simple_025kwh.json"), id: "BASE" };
      spoil(tariff);
      const res = await put("2.2.1", tariff);
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain(`${pointer}:`);
      expect((await get("2.3.0", "BASE")).body.data).toEqual(base());
    });

    it("owner in the path that is not one of the partner's parties → 2001, nothing stored", async () => {
      const tariff = { ...base(), country_code: "NL", party_id: "GWY", id: "INTRUDER" };
      const res = await put("2.3.0", tariff, "NL", "GWY");
      expect(res.body.status_code).toBe(2001);
      // NL/GWY is our own party: the sender list would show the tariff had it been stored
      const ids = (await list("2.3.0", "?limit=5&offset=0")).body.data.map((t: Json) => t.id);
      expect(ids).not.toContain("INTRUDER");
      expect((await list("2.3.0")).headers["x-total-count"]).toBe("7");
    });

    it("body owner different from the path → 2001, nothing stored", async () => {
      const res = await put("2.3.0", { ...base(), id: "MOVED", country_code: "CA", party_id: "FLO" }, "DE", "ALL", "MOVED");
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain("/country_code");
      expect((await get("2.3.0", "MOVED")).status).toBe(404);
      expect((await get("2.3.0", "MOVED", "CA", "FLO")).status).toBe(404);
    });

    it("body id different from the path → 2001", async () => {
      const res = await put("2.3.0", { ...base(), id: "OTHER" }, "DE", "ALL", "BASE");
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain("/id");
      expect((await get("2.3.0", "OTHER")).status).toBe(404);
    });

    it("GET of an unknown tariff → HTTP 404", async () => {
      expect((await get("2.3.0", "UNKNOWN")).status).toBe(404);
    });

    it("no PATCH in 2.2+ → HTTP 405, nothing changed", async () => {
      for (const v of ["2.3.0", "2.2.1"] as const) {
        const res = await h.http
          .patch(receiver(v, "DE", "ALL", "BASE"))
          .set("Authorization", h.auth)
          .send({ currency: "USD", last_updated: "2030-01-01T00:00:00Z" });
        expect(res.status).toBe(405);
      }
      expect((await get("2.3.0", "BASE")).body.data).toEqual(base());
    });
  });
});

describe("tariffs with a strictness: log partner", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      plugins: [TariffsPlugin],
      localModules: [localTariffs],
      modules: ["tariffs"],
      partnerRoles: PARTNER_ROLES,
      strictness: "log",
    });
  });
  afterAll(() => h.close());

  it("accepts a slightly-off tariff and logs a warning", async () => {
    const tariff = { ...readExample("2.3.0", "tariff_8_simple_025kwh.json"), currency: "eur" };
    const logsBefore = h.logs.length;
    const res = await h.http.put(h.path("2.3.0", "RECEIVER", "tariffs", "/DE/ALL/16")).set("Authorization", h.auth).send(tariff);
    expect(res.status).toBe(201);
    const stored = await h.http.get(h.path("2.3.0", "RECEIVER", "tariffs", "/DE/ALL/16")).set("Authorization", h.auth);
    expect(stored.body.data).toEqual(tariff);
    const warning = h.logs.slice(logsBefore).map((l) => JSON.parse(l)).find((l) => /accepted an invalid Tariff/.test(l.msg));
    expect(warning).toBeDefined();
    expect(JSON.stringify(warning.issues)).toContain("/currency");
  });

  it("still refuses a 2.1.1 PATCH whose merged tariff would be invalid", async () => {
    const base = readExample("2.1.1-d2_inline-extracted", "mod_tariffs_03_simple_tariff_example_2_euro_per_hour.json");
    const at = h.path("2.1.1", "RECEIVER", "tariffs", "/DE/ALL/12");
    expect((await h.http.put(at).set("Authorization", h.auth).send(base)).status).toBe(201);
    const res = await h.http.patch(at).set("Authorization", h.auth).send({ elements: [] });
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/elements:");
    expect((await h.http.get(at).set("Authorization", h.auth)).body.data).toEqual(base);
  });
});
