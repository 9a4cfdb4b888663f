import { startHarness, type Harness } from "../support/module-harness";
import { LocationsPlugin } from "../../plugins/locations/module";
import { TokensPlugin } from "../../plugins/tokens/module";
import { localLocations } from "../../adapters/local/locations";
import { localTokens } from "../../adapters/local/tokens";
import { LOCATIONS_TRANSLATION_LOSSES } from "../../plugins/locations/translate";

/** What older versions lose is listed in one place, and logged once per partner when it happens. */

const ADMIN = "admin-token-for-translation-losses";
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    plugins: [LocationsPlugin, TokensPlugin],
    localModules: [localLocations, localTokens],
    modules: ["locations", "tokens"],
    // the partner holds NL/GWY, so our own party is another one (a party is held by one side)
    partnerRoles: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "ourselves" } }],
    party: { party_id: "OUR" },
    adminToken: ADMIN,
  });
});
afterAll(() => h.close());

const location = {
  country_code: "NL",
  party_id: "GWY",
  id: "LOSS1",
  publish: true,
  address: "Straat 1",
  city: "Utrecht",
  postal_code: "3500AA",
  country: "NLD",
  coordinates: { latitude: "52.09074", longitude: "5.12142" },
  time_zone: "Europe/Amsterdam",
  help_phone: "+31301234567",
  last_updated: "2026-01-01T00:00:00Z",
};

it("GET /admin/v1/translation-losses lists every served module's losses, credentials included", async () => {
  const res = await h.http.get("/admin/v1/translation-losses").set("Authorization", `Bearer ${ADMIN}`);
  expect(res.status).toBe(200);
  const losses = res.body.data as { module: string; field: string }[];
  const modules = new Set(losses.map((l) => l.module));
  expect([...modules].sort()).toEqual(["credentials", "locations", "tokens"]);
  expect(losses.filter((l) => l.module === "locations")).toHaveLength(LOCATIONS_TRANSLATION_LOSSES.length);
  expect(losses).toContainEqual(expect.objectContaining({ module: "locations", object: "Location", field: "help_phone" }));
  expect((await h.http.get("/admin/v1/translation-losses")).status).toBe(401);
});

it("a field a 2.2.1 partner cannot receive is logged once, however often it is dropped", async () => {
  const put = await h.http.put(h.path("2.3.0", "RECEIVER", "locations", "/NL/GWY/LOSS1")).set("Authorization", h.auth).send(location);
  expect(put.status).toBe(201);
  for (let i = 0; i < 3; i++) {
    const got = await h.http.get(h.path("2.2.1", "RECEIVER", "locations", "/NL/GWY/LOSS1")).set("Authorization", h.auth);
    expect(got.body.data).not.toHaveProperty("help_phone");
  }
  const lines = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "field dropped by version translation" && l.field === "help_phone");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ partner: "partner", object: "Location", version: "2.2.1" });
});
