import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import type { CredentialsRole, VersionNumber } from "../../core/protocol/types";
import { silentTranslation, type TranslationContext } from "../../core/model/object-type";
import { startHarness, type Harness } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { TariffsPlugin } from "../../plugins/tariffs/module";
import { localTariffs } from "../../adapters/local/tariffs";
import { tariffType, TARIFFS_TRANSLATION_LOSSES } from "../../plugins/tariffs/translate";
import type { Tariff } from "../../plugins/tariffs/model";

type Json = Record<string, any>;

const cpo = (country_code: string, party_id: string): CredentialsRole => ({
  country_code,
  party_id,
  role: "CPO",
  business_details: { name: `${country_code}${party_id}` },
});
/** the partner CPO speaks for the parties owning the published examples */
const PARTNER_ROLES = [cpo("DE", "ALL"), cpo("CA", "FLO")];

const readExample = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));
const tariffFiles = (folder: string): string[] =>
  readdirSync(path.join(EXAMPLES, folder)).filter((f) => /^tariff(_|restriction_).*\.json$/.test(f)).sort();

/** Example files NOTICE.md marks as defective in a folder's section (rows whose Notes say DEFECT). */
const defectiveInIndex = (folder: string): string[] => {
  const index = readFileSync(path.join(EXAMPLES, "NOTICE.md"), "utf8");
  const start = index.indexOf(`## \`${folder}/\``);
  const end = index.indexOf("\n## ", start + 1);
  return index
    .slice(start, end)
    .split("\n")
    .filter((line) => /^\| tariff/.test(line) && /DEFECT/.test(line))
    .map((line) => line.split("|")[1].trim());
};

/** Skipped example files with the reason; must equal what NOTICE.md lists as defective. */
const SKIPPED: Record<string, Record<string, string>> = { "2.2.1": {}, "2.3.0": {} };

/**
 * Not listed as defective in NOTICE.md, but not a complete Tariff: the PUT
 * example omits the required last_updated. Asserted to be rejected naming
 * /last_updated, and accepted once last_updated is added.
 */
const INCOMPLETE: Record<string, string> = { "tariff_put_example.json": "lacks required last_updated" };

const dropsLogged = (logs: string[]): Json[] =>
  logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "field dropped by version translation");

const recordingTx = (): TranslationContext & { fields: string[] } => {
  const fields: string[] = [];
  return { ...silentTranslation(), fields, dropped: (field) => void fields.push(field) };
};

describe("tariffs module", () => {
  let h: Harness;
  const seeded = Array.from({ length: 7 }, (_, i) => ({
    country_code: "NL",
    party_id: "GWY",
    id: `T${i}`,
    currency: "EUR",
    type: "REGULAR",
    min_price: { before_taxes: 1, after_taxes: 1.21 },
    elements: [{ price_components: [{ type: "ENERGY", price: 0.3, vat: 21, step_size: 1 }] }],
    tax_included: "NO",
    last_updated: `2024-01-0${i + 1}T00:00:00Z`,
  }));

  beforeAll(async () => {
    h = await startHarness({
      plugins: [TariffsPlugin],
      localModules: [localTariffs],
      modules: ["tariffs"],
      partnerRoles: PARTNER_ROLES,
      maxPageLimit: 5,
      // one tariff of a party that is not ours: the sender must not list it
      seed: { tariffs: [...seeded, { ...seeded[0], country_code: "DE", party_id: "ALL", id: "FOREIGN" }] },
    });
  });
  afterAll(() => h.close());

  const receiver = (v: VersionNumber, cc: string, pid: string, id: string) => h.path(v, "RECEIVER", "tariffs", `/${cc}/${pid}/${id}`);
  const put = (v: VersionNumber, body: unknown, cc = "DE", pid = "ALL", id = (body as Json).id) =>
    h.http.put(receiver(v, cc, pid, id)).set("Authorization", h.auth).send(body as object);
  const get = (v: VersionNumber, id: string, cc = "DE", pid = "ALL") => h.http.get(receiver(v, cc, pid, id)).set("Authorization", h.auth);
  const del = (v: VersionNumber, id: string, cc = "DE", pid = "ALL") => h.http.delete(receiver(v, cc, pid, id)).set("Authorization", h.auth);
  const list = (v: VersionNumber, query = "") => h.http.get(h.path(v, "SENDER", "tariffs") + query).set("Authorization", h.auth);

  describe("published examples", () => {
    it("skips only the example files NOTICE.md lists as defective", () => {
      for (const v of ["2.2.1", "2.3.0"]) expect(Object.keys(SKIPPED[v]).sort()).toEqual(defectiveInIndex(v).sort());
      // tariff_7 is in the 2.2.1 tag (removed in 2.2.1-d2) and valid: it is tested, not skipped
      expect(tariffFiles("2.2.1")).toContain("tariff_7_first_hour_kwh_free.json");
      expect(tariffFiles("2.2.1").length).toBe(21);
      expect(tariffFiles("2.3.0").length).toBe(22);
    });

    const cases = (["2.2.1", "2.3.0"] as const).flatMap((v) =>
      tariffFiles(v)
        .filter((f) => !SKIPPED[v][f] && !INCOMPLETE[f])
        .map((f) => [v, f] as const),
    );

    it.each(cases)("%s %s: PUT, GET equal in its version and translated in the other, DELETE", async (v, file) => {
      const example = readExample(v, file);
      const { country_code: cc, party_id: pid, id } = example;
      const other: VersionNumber = v === "2.3.0" ? "2.2.1" : "2.3.0";
      // examples share ids: whatever another test left under this one goes first
      await del(v, id, cc, pid);

      const created = await put(v, example, cc, pid);
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ status_code: 1000, data: null });

      const same = await get(v, id, cc, pid);
      expect(same.status).toBe(200);
      expect(same.body.data).toEqual(example);

      // canonical as stored, then down to the other version with the module's own translator
      const canonical = v === "2.3.0" ? (example as Tariff) : tariffType.up(example, v, silentTranslation());
      const expected = other === "2.3.0" ? canonical : tariffType.down(canonical, other, silentTranslation());
      const translated = await get(other, id, cc, pid);
      expect(translated.status).toBe(200);
      expect(translated.body.data).toEqual(expected);
      if (other === "2.3.0") expect(translated.body.data.tax_included).toBe("NO");
      else expect(translated.body.data).not.toHaveProperty("tax_included");
      // independent of our translator: the spec publishes the same tariff in both versions
      if (tariffFiles(other).includes(file)) expect(translated.body.data).toEqual(readExample(other, file));

      const replaced = await put(v, example, cc, pid);
      expect(replaced.status).toBe(200);
      expect((await del(v, id, cc, pid)).status).toBe(200);
    });

    it.each(["2.2.1", "2.3.0"] as const)("%s tariff_put_example: rejected for its missing last_updated, accepted with it", async (v) => {
      const example = readExample(v, "tariff_put_example.json");
      expect(INCOMPLETE["tariff_put_example.json"]).toMatch(/last_updated/);
      await del(v, example.id);
      const rejected = await put(v, example);
      expect(rejected.body.status_code).toBe(2001);
      expect(rejected.body.status_message).toContain("/last_updated");
      expect((await get(v, example.id)).status).toBe(404);

      const complete = { ...example, last_updated: "2024-05-01T10:00:00Z" };
      expect((await put(v, complete)).status).toBe(201);
      expect((await get(v, example.id)).body.data).toEqual(complete);
      await del(v, example.id);
    });
  });

  describe("translation between 2.3.0 and 2.2.1", () => {
    afterEach(async () => {
      for (const [cc, pid, id] of [["DE", "ALL", "20"], ["CA", "FLO", "12"], ["DE", "ALL", "TX"]]) await del("2.3.0", id, cc, pid);
    });

    it("2.2.1 min_price Price becomes a PriceLimit and tax_included NO", async () => {
      const example = readExample("2.2.1", "tariff_12_025kwh_min_price.json");
      await put("2.2.1", example);
      const { body } = await get("2.3.0", "20");
      expect(body.data.min_price).toEqual({ before_taxes: 0.5, after_taxes: 0.55 });
      expect(body.data.tax_included).toBe("NO");
      // the 2.3.0 example of the same tariff is what comes back
      expect(body.data).toEqual(readExample("2.3.0", "tariff_12_025kwh_min_price.json"));
    });

    it("tax-inclusive prices with a vat rate are converted to excluding VAT for 2.2.1", async () => {
      const tariff = {
        ...readExample("2.3.0", "tariff_4_complex.json"),
        id: "TX",
        tax_included: "YES",
        preauthorize_amount: 50,
      };
      await put("2.3.0", tariff);
      const { body } = await get("2.2.1", "TX");
      const prices = body.data.elements.map((e: Json) => e.price_components[0].price);
      // 2.50 incl. 15% VAT, 1.00/2.00/1.25 incl. 20%, 5.00/6.00 incl. 10%
      expect(prices).toEqual([2.1739, 0.8333, 1.6667, 1.0417, 4.5455, 5.4545]);
      expect(body.data.elements[0].price_components[0].vat).toBe(15);
      expect(body.data).not.toHaveProperty("preauthorize_amount");
      const fields = dropsLogged(h.logs).map((l) => l.field);
      expect(fields).toEqual(expect.arrayContaining(["tax_included", "preauthorize_amount"]));
    });

    it("tax-inclusive prices without a vat rate pass through unchanged and are reported (tariff_20)", async () => {
      const example = readExample("2.3.0", "tariff_20_simple_north_american_inclusive.json");
      await put("2.3.0", example, "CA", "FLO");
      const { body } = await get("2.2.1", "12", "CA", "FLO");
      expect(body.data.elements[0].price_components[0].price).toBe(2.1);
      expect(dropsLogged(h.logs).some((l) => l.field === "elements.price_components.price" && l.version === "2.2.1")).toBe(true);
    });

    it("drops elements restricted to bookings for 2.2.1 and keeps unknown properties", async () => {
      const tariff: Json = {
        ...readExample("2.3.0", "tariff_16_reservation_2_euro_fee_5_euro_per_hour.json"),
        loyalty_scheme: { name: "green" },
      };
      tariff.elements = [
        { price_components: [{ type: "FLAT", price: 3, step_size: 1, origin: "booking-fee" }], restrictions: { booking: "BOOKING" } },
        ...tariff.elements,
      ];
      await put("2.3.0", tariff);
      expect((await get("2.3.0", "20")).body.data).toEqual(tariff);
      const down = (await get("2.2.1", "20")).body.data;
      expect(down.elements).toEqual(readExample("2.2.1", "tariff_16_reservation_2_euro_fee_5_euro_per_hour.json").elements);
      expect(down.loyalty_scheme).toEqual({ name: "green" });
    });

    it("every field reported as dropped is listed in TARIFFS_TRANSLATION_LOSSES", () => {
      const listed = new Set(TARIFFS_TRANSLATION_LOSSES.map((l) => l.field));
      const reported = dropsLogged(h.logs).filter((l) => l.object === "Tariff");
      expect(reported.length).toBeGreaterThan(0);
      for (const l of reported) expect(listed).toContain(l.field);
    });
  });

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

  describe("sender list", () => {
    const ids = (res: { body: Json }) => res.body.data.map((t: Json) => t.id);
    const localPath = (link: string) => new URL(/<([^>]+)>/.exec(link)![1]).pathname + new URL(/<([^>]+)>/.exec(link)![1]).search;

    it("pages with limit and offset, X-Total-Count, X-Limit and Link", async () => {
      const res = await list("2.3.0", "?limit=2");
      expect(ids(res)).toEqual(["T0", "T1"]);
      expect(res.headers["x-total-count"]).toBe("7");
      expect(res.headers["x-limit"]).toBe("5");
      expect(res.headers.link).toMatch(/offset=2/);
      expect(res.headers.link).toMatch(/limit=2/);
      expect(res.headers.link).toMatch(/rel="next"/);
      expect(ids(await list("2.3.0", "?offset=5&limit=2"))).toEqual(["T5", "T6"]);
    });

    it("follows Link headers to the end and lists only our party's tariffs", async () => {
      const seen: string[] = [];
      let next: string | undefined = h.path("2.3.0", "SENDER", "tariffs") + "?limit=3";
      let pages = 0;
      while (next) {
        const res: { body: Json; headers: Record<string, string> } = await h.http.get(next).set("Authorization", h.auth);
        seen.push(...ids(res));
        next = res.headers.link ? localPath(res.headers.link) : undefined;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(seeded.map((t) => t.id));
      expect(seen).not.toContain("FOREIGN");
    });

    it("date_from is inclusive and date_to exclusive at the exact boundaries; Link keeps them", async () => {
      const res = await list("2.3.0", "?date_from=2024-01-03T00:00:00Z&date_to=2024-01-06T00:00:00Z&limit=2");
      expect(ids(res)).toEqual(["T2", "T3"]);
      expect(res.headers["x-total-count"]).toBe("3");
      expect(res.headers.link).toContain("date_from=2024-01-03T00%3A00%3A00Z");
      expect(res.headers.link).toContain("date_to=2024-01-06T00%3A00%3A00Z");
      const rest = await h.http.get(localPath(res.headers.link)).set("Authorization", h.auth);
      expect(ids(rest)).toEqual(["T4"]);
      expect(rest.headers.link).toBeUndefined();
    });

    it("caps a limit above the maximum and says so in X-Limit", async () => {
      const res = await list("2.3.0", "?limit=1000");
      expect(ids(res)).toHaveLength(5);
      expect(res.headers["x-limit"]).toBe("5");
      expect(res.headers.link).toMatch(/offset=5&limit=5|limit=5.*offset=5/);
    });

    it("rejects a malformed date filter with 2001", async () => {
      expect((await list("2.3.0", "?date_from=yesterday")).body.status_code).toBe(2001);
    });

    it("2.2.1 shape: Price min_price, no tax_included", async () => {
      const [first] = (await list("2.2.1", "?limit=1")).body.data;
      expect(first).toEqual(tariffType.down(seeded[0] as Tariff, "2.2.1", silentTranslation()));
      expect(first.min_price).toEqual({ excl_vat: 1, incl_vat: 1.21 });
      expect(first).not.toHaveProperty("tax_included");
    });

    it("2.1.1 shape: no owner, type, min_price or vat", async () => {
      const [first] = (await list("2.1.1", "?limit=1")).body.data;
      expect(first).toEqual({
        id: "T0",
        currency: "EUR",
        elements: [{ price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] }],
        last_updated: "2024-01-01T00:00:00Z",
      });
    });
  });

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
