import { startHarness, type Harness } from "../support/module-harness";
import { TariffsPlugin } from "../../plugins/tariffs/module";
import { localTariffs } from "../../adapters/local/tariffs";

/** `partners[].max_page_limit`: a partner that must get smaller pages than the server's cap gets them, and X-Limit says so. */

const tariff = (i: number) => ({
  country_code: "NL",
  party_id: "GWY",
  id: `T${i}`,
  currency: "EUR",
  tax_included: "NO",
  elements: [{ price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] }],
  last_updated: `2026-01-01T00:00:${String(i).padStart(2, "0")}Z`,
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    plugins: [TariffsPlugin],
    localModules: [localTariffs],
    modules: ["tariffs"],
    maxPageLimit: 100,
    partnerConfig: { max_page_limit: 3 },
    seed: { tariffs: Array.from({ length: 7 }, (_, i) => tariff(i)) },
  });
});
afterAll(() => h.close());

it("caps the page at the partner's limit, says so in X-Limit and links the next page with it", async () => {
  const res = await h.http.get(h.path("2.3.0", "SENDER", "tariffs", "?limit=50")).set("Authorization", h.auth);
  expect(res.body.data.map((t: { id: string }) => t.id)).toEqual(["T0", "T1", "T2"]);
  expect(res.headers["x-limit"]).toBe("3");
  expect(res.headers["x-total-count"]).toBe("7");
  expect(res.headers.link).toMatch(/offset=3&limit=3>; rel="next"$/);
});
