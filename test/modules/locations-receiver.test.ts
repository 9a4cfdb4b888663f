// the fixtures first: they load the harness, which loads reflect-metadata (the plugin's decorators need it)
import { baseLocation, clone, connector, cpo, evse, logLines, receiverRequests, startLocationsReceiver, type Json } from "./locations.fixtures";
import { startHarness, type Harness } from "../support/module-harness";
import type { VersionNumber } from "../../core/protocol/types";
import { localLocations } from "../../adapters/local/locations";
import { LocationsPlugin } from "../../plugins/locations/module";

describe("locations module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLocationsReceiver();
  });
  afterAll(() => h.close());
  const { put, patch, get, stored } = receiverRequests(() => h);

  describe("receiver", () => {
    it("PUT of a new Location answers 201, of an existing one 200", async () => {
      const body = baseLocation("NL", "TNM", "NEW-1");
      expect((await put("2.3.0", "/NL/TNM/NEW-1", body)).status).toBe(201);
      expect((await put("2.3.0", "/NL/TNM/NEW-1", body)).status).toBe(200);
    });

    it("PUT of an EVSE adds or replaces it in its Location and sets the Location's last_updated", async () => {
      await put("2.3.0", "/NL/TNM/EV-1", baseLocation("NL", "TNM", "EV-1"));
      const added = evse("9999", ["1"], "2020-05-05T05:05:05Z");
      expect((await put("2.3.0", "/NL/TNM/EV-1/9999", added)).status).toBe(201);
      const replaced = { ...added, status: "CHARGING", last_updated: "2020-06-06T06:06:06Z" };
      expect((await put("2.3.0", "/NL/TNM/EV-1/9999", replaced)).status).toBe(200);
      const location = (await get("2.3.0", "/NL/TNM/EV-1")).body.data;
      expect(location.evses.map((e: Json) => e.uid)).toEqual(["3255", "3256", "9999"]);
      expect(location.evses[2]).toEqual(replaced);
      expect(location.last_updated).toBe("2020-06-06T06:06:06Z");
    });

    it("PUT of a Connector adds or replaces it and sets its EVSE's and Location's last_updated", async () => {
      await put("2.3.0", "/NL/TNM/CO-1", baseLocation("NL", "TNM", "CO-1"));
      expect((await put("2.3.0", "/NL/TNM/CO-1/3256/7", connector("7", "2021-01-01T00:00:00Z"))).status).toBe(201);
      const replaced = { ...connector("7", "2021-02-02T00:00:00Z"), max_amperage: 32 };
      expect((await put("2.3.0", "/NL/TNM/CO-1/3256/7", replaced)).status).toBe(200);
      expect((await get("2.3.0", "/NL/TNM/CO-1/3256/7")).body.data).toEqual(replaced);
      expect((await get("2.3.0", "/NL/TNM/CO-1/3256")).body.data.last_updated).toBe("2021-02-02T00:00:00Z");
      expect((await get("2.3.0", "/NL/TNM/CO-1")).body.data.last_updated).toBe("2021-02-02T00:00:00Z");
    });

    it("a child pushed into an unknown parent answers HTTP 404 with 2003 (unknown Location) and stores nothing", async () => {
      const noLocation = await put("2.3.0", "/NL/TNM/NOPE/1", evse("1", ["1"], "2020-01-01T00:00:00Z"));
      expect(noLocation.status).toBe(404);
      expect(noLocation.body.status_code).toBe(2003);
      expect(await stored("NL", "TNM", "NOPE")).toBeUndefined();
      await put("2.3.0", "/NL/TNM/PARENT", baseLocation("NL", "TNM", "PARENT"));
      const noEvse = await put("2.3.0", "/NL/TNM/PARENT/4444/1", connector("1", "2020-01-01T00:00:00Z"));
      expect(noEvse.status).toBe(404);
      expect((await get("2.3.0", "/NL/TNM/PARENT")).body.data).toEqual(baseLocation("NL", "TNM", "PARENT"));
    });

    it("GET of unknown objects answers HTTP 404", async () => {
      await put("2.3.0", "/NL/TNM/KNOWN", baseLocation("NL", "TNM", "KNOWN"));
      for (const rest of ["/NL/TNM/UNKNOWN", "/NL/TNM/KNOWN/0000", "/NL/TNM/KNOWN/3255/9"]) expect((await get("2.3.0", rest)).status).toBe(404);
    });

    it("PATCH of an unknown Location, EVSE or Connector answers HTTP 404", async () => {
      await put("2.3.0", "/NL/TNM/PK", baseLocation("NL", "TNM", "PK"));
      const body = { status: "CHARGING", last_updated: "2022-01-01T00:00:00Z" };
      expect((await patch("2.3.0", "/NL/TNM/NONE", { name: "x", last_updated: "2022-01-01T00:00:00Z" })).status).toBe(404);
      expect((await patch("2.3.0", "/NL/TNM/PK/0000", body)).status).toBe(404);
      expect((await patch("2.3.0", "/NL/TNM/PK/3255/9", { max_amperage: 1, last_updated: "2022-01-01T00:00:00Z" })).status).toBe(404);
      expect((await get("2.3.0", "/NL/TNM/PK")).body.data).toEqual(baseLocation("NL", "TNM", "PK"));
    });

    it("PATCH of a Location may carry whole EVSEs, merged by uid (others stay)", async () => {
      await put("2.3.0", "/NL/TNM/PE", baseLocation("NL", "TNM", "PE"));
      const changed = { ...evse("3256", ["1"], "2023-03-03T00:00:00Z"), status: "OUTOFORDER" };
      const added = evse("5000", ["1"], "2023-03-03T00:00:00Z");
      expect((await patch("2.3.0", "/NL/TNM/PE", { evses: [changed, added], last_updated: "2023-03-03T00:00:00Z" })).status).toBe(200);
      const location = (await get("2.3.0", "/NL/TNM/PE")).body.data;
      expect(location.evses.map((e: Json) => [e.uid, e.status])).toEqual([
        ["3255", "AVAILABLE"],
        ["3256", "OUTOFORDER"],
        ["5000", "AVAILABLE"],
      ]);
      expect(location.last_updated).toBe("2023-03-03T00:00:00Z");
    });

    it("PATCH of a connector sets its EVSE's and Location's last_updated; the other EVSE keeps its own", async () => {
      await put("2.2.1", "/NL/TNM/PC", baseLocation("NL", "TNM", "PC"));
      expect((await patch("2.2.1", "/NL/TNM/PC/3255/1", { max_amperage: 32, last_updated: "2024-04-04T04:04:04Z" })).status).toBe(200);
      const location = (await get("2.2.1", "/NL/TNM/PC")).body.data;
      expect(location.last_updated).toBe("2024-04-04T04:04:04Z");
      expect(location.evses[0].last_updated).toBe("2024-04-04T04:04:04Z");
      expect(location.evses[0].connectors[0]).toMatchObject({ max_amperage: 32, max_voltage: 230, last_updated: "2024-04-04T04:04:04Z" });
      expect(location.evses[0].connectors[1].last_updated).toBe("2019-01-01T00:00:00Z");
      expect(location.evses[1].last_updated).toBe("2019-01-01T00:00:00Z");
    });

    it("a PATCH whose result would be an invalid Location is refused and nothing changes", async () => {
      await put("2.3.0", "/NL/TNM/PI", baseLocation("NL", "TNM", "PI"));
      const response = await patch("2.3.0", "/NL/TNM/PI", { publish_allowed_to: [{ uid: "123", type: "RFID" }], last_updated: "2024-01-01T00:00:00Z" });
      expect(response.body.status_code).toBe(2001);
      expect(response.body.status_message).toContain("/publish_allowed_to");
      expect((await get("2.3.0", "/NL/TNM/PI")).body.data).toEqual(baseLocation("NL", "TNM", "PI"));
    });

    it("2.3.0 keeps unknown properties and custom OpenEnum values; 2.2.1 leaves those values out", async () => {
      const body: Json = {
        ...baseLocation("NL", "TNM", "EXT"),
        facilities: ["CAFE", "SAUNA"],
        parking_type: "ROOFTOP",
        x_vendor: { rating: 5 },
        help_phone: "+31201234567",
      };
      body.evses[0].x_evse_note = "near the exit";
      body.evses[0].connectors[0].capabilities = ["ISO_15118_20_PLUG_AND_CHARGE"];
      expect((await put("2.3.0", "/NL/TNM/EXT", body)).status).toBe(201);
      expect((await get("2.3.0", "/NL/TNM/EXT")).body.data).toEqual(body);
      const old = (await get("2.2.1", "/NL/TNM/EXT")).body.data;
      expect(old.facilities).toEqual(["CAFE"]);
      expect(old.parking_type).toBeUndefined();
      expect(old.help_phone).toBeUndefined();
      expect(old.x_vendor).toEqual({ rating: 5 });
      expect(old.evses[0].connectors[0].capabilities).toBeUndefined();
      // the same custom values are refused in 2.2.1, where the enumerations are closed
      const refused = await put("2.2.1", "/NL/TNM/EXT", { ...baseLocation("NL", "TNM", "EXT"), facilities: ["SAUNA"] });
      expect(refused.body.status_code).toBe(2001);
      expect(refused.body.status_message).toContain("/facilities/0");
    });

    it("accepts the errata lengths: address up to 255, state up to 45", async () => {
      const body = { ...baseLocation("NL", "TNM", "LEN"), address: "a".repeat(255), state: "s".repeat(45) };
      expect((await put("2.2.1", "/NL/TNM/LEN", body)).status).toBe(201);
      expect((await get("2.2.1", "/NL/TNM/LEN")).body.data).toEqual(body);
    });

    describe("ownership", () => {
      it("a Location under a party that is not the partner's → 2001 and nothing stored", async () => {
        const body = baseLocation("FR", "XXX", "FOREIGN");
        const response = await put("2.3.0", "/FR/XXX/FOREIGN", body);
        expect(response.body.status_code).toBe(2001);
        expect(await stored("FR", "XXX", "FOREIGN")).toBeUndefined();
      });

      it("body country_code/party_id/id differing from the path → 2001 and nothing stored", async () => {
        const wrongOwner = await put("2.3.0", "/NL/TNM/MISMATCH", baseLocation("BE", "BEC", "MISMATCH"));
        expect(wrongOwner.body.status_code).toBe(2001);
        expect(wrongOwner.body.status_message).toContain("/country_code");
        const wrongId = await put("2.3.0", "/NL/TNM/MISMATCH", baseLocation("NL", "TNM", "OTHER-ID"));
        expect(wrongId.body.status_code).toBe(2001);
        expect(wrongId.body.status_message).toContain("/id");
        const wrongUid = await put("2.3.0", "/NL/TNM/MISMATCH/1", evse("2", ["1"], "2020-01-01T00:00:00Z"));
        expect(wrongUid.body.status_code).toBe(2001);
        expect(await stored("NL", "TNM", "MISMATCH")).toBeUndefined();
        expect(await stored("BE", "BEC", "MISMATCH")).toBeUndefined();
      });
    });

    describe("malformed bodies → 2001 naming the field, nothing changed", () => {
      const base = baseLocation("NL", "TNM", "BAD");
      const variants: [string, string, (b: Json) => void][] = [
        ["wrong type", "/evses/0/connectors/0/max_voltage", (b) => (b.evses[0].connectors[0].max_voltage = "230")],
        ["too-long string", "/address", (b) => (b.address = "a".repeat(256))],
        ["too-long state", "/state", (b) => (b.state = "s".repeat(46))],
        ["missing required field", "/city", (b) => delete b.city],
        ["missing required nested field", "/evses/1/status", (b) => delete b.evses[1].status],
        ["bad enum", "/evses/0/status", (b) => (b.evses[0].status = "BROKEN")],
        ["bad date", "/last_updated", (b) => (b.last_updated = "2024-13-01T00:00:00Z")],
        ["date with an offset", "/evses/0/last_updated", (b) => (b.evses[0].last_updated = "2024-01-01T00:00:00+01:00")],
        ["empty connectors", "/evses/0/connectors", (b) => (b.evses[0].connectors = [])],
        ["bad coordinates", "/coordinates/latitude", (b) => (b.coordinates.latitude = "52.3")],
        ["bad country", "/country", (b) => (b.country = "NL")],
        ["bad opening hours", "/opening_times/regular_hours/0/period_begin", (b) => (b.opening_times = { twentyfourseven: false, regular_hours: [{ weekday: 1, period_begin: "7:00", period_end: "18:00" }] })],
        ["closed hours without regular hours", "/opening_times/regular_hours", (b) => (b.opening_times = { twentyfourseven: false })],
        ["publish_allowed_to while published", "/publish_allowed_to", (b) => (b.publish_allowed_to = [{ visual_number: "1", issuer: "X" }])],
      ];

      beforeAll(async () => {
        await put("2.3.0", "/NL/TNM/BAD", base);
      });

      it.each(variants)("%s (%s)", async (_name, pointer, spoil) => {
        for (const version of ["2.3.0", "2.2.1"] as VersionNumber[]) {
          const body = clone(base);
          spoil(body);
          const response = await put(version, "/NL/TNM/BAD", body);
          expect(response.body.status_code).toBe(2001);
          expect(response.body.status_message).toContain(pointer);
          expect((await get("2.3.0", "/NL/TNM/BAD")).body.data).toEqual(base);
        }
      });

      it("names every violating field at once", async () => {
        const body = clone(base);
        delete body.city;
        body.evses[0].status = "BROKEN";
        const message: string = (await put("2.3.0", "/NL/TNM/BAD", body)).body.status_message;
        expect(message).toContain("/city");
        expect(message).toContain("/evses/0/status");
      });

      it("a PATCH without last_updated, with a bad enum or a too-long field is refused", async () => {
        const cases: [string, unknown, string][] = [
          ["/NL/TNM/BAD/3255", { status: "CHARGING" }, "/last_updated"],
          ["/NL/TNM/BAD/3255", { status: "SLEEPING", last_updated: "2024-01-01T00:00:00Z" }, "/status"],
          ["/NL/TNM/BAD/3255/1", { tariff_ids: ["x".repeat(37)], last_updated: "2024-01-01T00:00:00Z" }, "/tariff_ids/0"],
          ["/NL/TNM/BAD", { name: "n".repeat(256), last_updated: "2024-01-01T00:00:00Z" }, "/name"],
          ["/NL/TNM/BAD", { uid: "x", id: "OTHER", last_updated: "2024-01-01T00:00:00Z" }, "/id"],
        ];
        for (const [rest, body, pointer] of cases) {
          const response = await patch("2.2.1", rest, body);
          expect(response.body.status_code).toBe(2001);
          expect(response.body.status_message).toContain(pointer);
        }
        expect((await get("2.3.0", "/NL/TNM/BAD")).body.data).toEqual(base);
      });
    });
  });
});

/** A locations receiver for one partner, NL/TNM, of the given strictness. */
const receiverFor = (strictness: "log" | "repair"): Promise<Harness> =>
  startHarness({ plugins: [LocationsPlugin], localModules: [localLocations], modules: ["locations"], strictness, partnerRoles: [cpo("NL", "TNM")] });

describe("locations with a strictness: log partner", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await receiverFor("log");
  });
  afterAll(() => h.close());

  it("accepts a slightly-off Location and logs a warning", async () => {
    const body = { ...baseLocation("NL", "TNM", "LOOSE"), name: "n".repeat(300), postal_code: "12345678901" };
    const response = await h.http.put(h.path("2.2.1", "RECEIVER", "locations", "/NL/TNM/LOOSE")).set("Authorization", h.auth).send(body);
    expect(response.status).toBe(201);
    const warning = logLines(h).find((l) => typeof l.msg === "string" && l.msg.includes("strictness: log"));
    expect(warning).toBeDefined();
    expect(JSON.stringify(warning!.issues)).toContain("/name");
    const back = await h.http.get(h.path("2.2.1", "RECEIVER", "locations", "/NL/TNM/LOOSE")).set("Authorization", h.auth);
    expect(back.body.data).toEqual(body);
  });
});

describe("locations with a strictness: repair partner", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await receiverFor("repair");
  });
  afterAll(() => h.close());
  const { put, patch, get } = receiverRequests(() => h);

  it("a valid PATCH whose merged Location would be invalid is refused with 2001 as under reject: repair has nothing to repair in a merge", async () => {
    await put("2.3.0", "/NL/TNM/PR", baseLocation("NL", "TNM", "PR"));
    const response = await patch("2.3.0", "/NL/TNM/PR", { publish_allowed_to: [{ uid: "123", type: "RFID" }], last_updated: "2024-01-01T00:00:00Z" });
    expect(response.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("the Location after this change would be invalid: /publish_allowed_to") });
    expect((await get("2.3.0", "/NL/TNM/PR")).body.data).toEqual(baseLocation("NL", "TNM", "PR"));
  });
});
