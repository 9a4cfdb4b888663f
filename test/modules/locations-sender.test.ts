// the fixtures first: they load the harness, which loads reflect-metadata (the plugin's decorators need it)
import { baseLocation, cpo, evse, type Json } from "./locations.fixtures";
import { startHarness, type Harness } from "../support/module-harness";
import type { VersionNumber } from "../../core/protocol/types";
import { localLocations } from "../../adapters/local/locations";
import { LocationsPlugin } from "../../plugins/locations/module";

describe("locations module", () => {
  describe("sender sees child changes through the Location's last_updated", () => {
    // Our own backend reporting changes of our NL/GWY (POST /admin/v1/events, stored by the rules of a
    // partner's push): a partner cannot hold our party, and the sender serves ours.
    let own: Harness;
    const ADMIN = "admin-token-for-own-location-events";
    // a gateway per test: the window queries list every Location of ours, the other test's too
    beforeEach(async () => {
      own = await startHarness({ plugins: [LocationsPlugin], localModules: [localLocations], modules: ["locations"], partnerRoles: [cpo("NL", "TNM")], adminToken: ADMIN });
    });
    afterEach(() => own.close());
    const event = async (kind: "upsert" | "patch", path: string[], object: unknown) => {
      const res = await own.http
        .post("/admin/v1/events")
        .set("Authorization", `Bearer ${ADMIN}`)
        .send({ module: "locations", owner: { country_code: "NL", party_id: "GWY" }, path, kind, object });
      expect(res.body.status_code).toBe(1000);
      return res;
    };
    const ownSenderGet = (rest: string) => own.http.get(own.path("2.3.0", "SENDER", "locations", rest)).set("Authorization", own.auth);

    it("a connector PATCH moves its Location into a later date window", async () => {
      await event("upsert", ["OWN-1"], baseLocation("NL", "GWY", "OWN-1", "2010-01-01T00:00:00Z"));
      const window = "?date_from=2015-01-01T00:00:00Z&date_to=2016-01-01T00:00:00Z";
      expect((await ownSenderGet(window)).body.data).toEqual([]);
      await event("patch", ["OWN-1", "3256", "1"], { max_amperage: 20, last_updated: "2015-06-01T00:00:00Z" });
      const listed = await ownSenderGet(window);
      expect(listed.headers["x-total-count"]).toBe("1");
      expect(listed.body.data.map((l: Json) => [l.id, l.last_updated])).toEqual([["OWN-1", "2015-06-01T00:00:00Z"]]);
      expect((await ownSenderGet("?date_to=2015-06-01T00:00:00Z")).body.data.map((l: Json) => l.id)).not.toContain("OWN-1");
      // an EVSE PUT moves it again
      await event("upsert", ["OWN-1", "3255"], evse("3255", ["1"], "2017-01-01T00:00:00Z"));
      expect((await ownSenderGet(window)).body.data).toEqual([]);
      expect((await ownSenderGet("?date_from=2017-01-01T00:00:00Z")).body.data.map((l: Json) => l.id)).toEqual(["OWN-1"]);
    });

    it("an unpublished Location is withheld from the Sender, and appears once it is published", async () => {
      const hidden = { ...baseLocation("NL", "GWY", "HOME-1", "2030-01-01T00:00:00Z"), publish: false, publish_allowed_to: [{ visual_number: "123", issuer: "X" }] };
      await event("upsert", ["HOME-1"], hidden);
      const listed = await ownSenderGet("?date_from=2030-01-01T00:00:00Z");
      expect(listed.body.data).toEqual([]);
      expect(listed.headers["x-total-count"]).toBe("0");
      expect((await own.http.get(own.path("2.3.0", "SENDER", "locations", "/HOME-1")).set("Authorization", own.auth)).status).toBe(404);
      await event("upsert", ["HOME-1"], { ...baseLocation("NL", "GWY", "HOME-1", "2030-01-02T00:00:00Z"), publish: true });
      const shown = await ownSenderGet("?date_from=2030-01-01T00:00:00Z");
      expect(shown.body.data.map((l: Json) => [l.id, l.publish])).toEqual([["HOME-1", true]]);
    });
  });
});

describe("locations sender", () => {
  let h: Harness;
  const COUNT = 1000;
  const BASE = Date.parse("2024-01-01T00:00:00Z");
  /** two Locations per second, so equal last_updated values occur and ordering ties must be stable */
  const stampOf = (i: number) => new Date(BASE + Math.floor(i / 2) * 1000).toISOString().replace(".000Z", "Z");
  const idOf = (i: number) => `LOC${String(i).padStart(4, "0")}`;
  const seeded = (i: number): Json => ({ ...baseLocation("NL", "GWY", idOf(i), stampOf(i)), name: `Location ${i}` });
  const list = (version: VersionNumber, query: string) => h.http.get(h.path(version, "SENDER", "locations", query)).set("Authorization", h.auth);

  beforeAll(async () => {
    h = await startHarness({
      plugins: [LocationsPlugin],
      localModules: [localLocations],
      modules: ["locations"],
      maxPageLimit: 100,
      seed: { locations: Array.from({ length: COUNT }, (_, i) => seeded(i)) },
    });
  });
  afterAll(() => h.close());

  it("a walk with limit 7 following Link headers returns each Location exactly once", async () => {
    const seen: string[] = [];
    let next: string | undefined = h.path("2.3.0", "SENDER", "locations", "?limit=7");
    let pages = 0;
    while (next) {
      const response = await h.http.get(next).set("Authorization", h.auth);
      expect(response.status).toBe(200);
      expect(response.headers["x-total-count"]).toBe(String(COUNT));
      expect(response.body.data.length).toBeLessThanOrEqual(7);
      seen.push(...response.body.data.map((l: Json) => l.id));
      const link = response.headers.link as string | undefined;
      next = link ? new URL(/<([^>]+)>/.exec(link)![1]).pathname + new URL(/<([^>]+)>/.exec(link)![1]).search : undefined;
      pages++;
    }
    expect(pages).toBe(Math.ceil(COUNT / 7));
    expect(seen.length).toBe(COUNT);
    expect(new Set(seen).size).toBe(COUNT);
    // oldest first
    expect(seen[0]).toBe("LOC0000");
    expect(seen[COUNT - 1]).toBe("LOC0999");
  });

  it("caps limit 1000 at the server maximum: X-Limit 100, 100 items, Link with limit=100", async () => {
    const response = await list("2.3.0", "?limit=1000");
    expect(response.headers["x-limit"]).toBe("100");
    expect(response.body.data).toHaveLength(100);
    expect(response.headers.link).toMatch(/offset=100&limit=100>; rel="next"/);
  });

  it("offset and limit select a slice; no Link on the last page", async () => {
    const middle = await list("2.3.0", "?offset=10&limit=3");
    expect(middle.body.data.map((l: Json) => l.id)).toEqual(["LOC0010", "LOC0011", "LOC0012"]);
    const last = await list("2.3.0", "?offset=995&limit=7");
    expect(last.body.data.map((l: Json) => l.id)).toEqual(["LOC0995", "LOC0996", "LOC0997", "LOC0998", "LOC0999"]);
    expect(last.headers.link).toBeUndefined();
  });

  it("date_from is inclusive and date_to exclusive at the exact boundaries; Link keeps the filters", async () => {
    const from = stampOf(20); // Locations 20 and 21
    const to = stampOf(40); // Locations 40 and 41, excluded
    const response = await list("2.3.0", `?date_from=${from}&date_to=${to}&limit=15`);
    expect(response.headers["x-total-count"]).toBe("20");
    expect(response.body.data.map((l: Json) => l.id)).toEqual(Array.from({ length: 15 }, (_, k) => idOf(20 + k)));
    const link = decodeURIComponent(response.headers.link);
    expect(link).toContain(`date_from=${from}`);
    expect(link).toContain(`date_to=${to}`);
    const rest = await h.http.get(new URL(/<([^>]+)>/.exec(response.headers.link)![1]).pathname + new URL(/<([^>]+)>/.exec(response.headers.link)![1]).search).set("Authorization", h.auth);
    expect(rest.body.data.map((l: Json) => l.id)).toEqual(Array.from({ length: 5 }, (_, k) => idOf(35 + k)));
    expect(rest.headers.link).toBeUndefined();
  });

  it("GET of one Location, EVSE and Connector; unknown ones answer HTTP 404", async () => {
    const sender = (rest: string) => list("2.3.0", rest);
    expect((await sender("/LOC0005")).body.data).toEqual(seeded(5));
    expect((await sender("/LOC0005/3256")).body.data).toEqual(seeded(5).evses[1]);
    expect((await sender("/LOC0005/3255/2")).body.data).toEqual(seeded(5).evses[0].connectors[1]);
    for (const rest of ["/NOPE", "/LOC0005/NOPE", "/LOC0005/3255/9"]) {
      const response = await sender(rest);
      expect(response.status).toBe(404);
      expect(response.body.status_code).toBe(2003);
    }
  });

  it("serves the 2.2.1 and 2.1.1 list shapes", async () => {
    const v221 = await list("2.2.1", "?limit=2");
    expect(v221.body.data).toEqual([seeded(0), seeded(1)]);
    const v211 = await list("2.1.1", "?limit=2");
    expect(v211.headers["x-total-count"]).toBe(String(COUNT));
    const first = v211.body.data[0];
    expect(first).toMatchObject({ id: "LOC0000", type: "ON_STREET", address: "Street 1" });
    expect(first.country_code).toBeUndefined();
    expect(first.publish).toBeUndefined();
    expect(first.evses[0].connectors[0]).toEqual({
      id: "1",
      standard: "IEC_62196_T2",
      format: "SOCKET",
      power_type: "AC_3_PHASE",
      voltage: 230,
      amperage: 16,
      tariff_id: "11",
      last_updated: stampOf(0),
    });
  });
});
