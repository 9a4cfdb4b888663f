// the harness first: it loads reflect-metadata, which the plugin's decorators need
import { startHarness, type Harness } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { VersionNumber } from "../../core/protocol/types";
import type { CredentialsRole } from "../../core/protocol/types";
import { silentTranslation } from "../../core/model/object-type";
import { OwnedCollection } from "../../adapters/local/owned-collection";
import { localLocations } from "../../adapters/local/locations";
import { LocationsPlugin } from "../../plugins/locations/module";
import { LOCATIONS_TRANSLATION_LOSSES, locationType } from "../../plugins/locations/translate";
import type { Location } from "../../plugins/locations/model";

type Json = Record<string, any>;

const read = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const cpo = (country_code: string, party_id: string): CredentialsRole => ({
  country_code,
  party_id,
  role: "CPO",
  business_details: { name: `${country_code}${party_id}` },
});

/** The other version of a 2.2+ pair, and the translation from one to the other. */
const OTHER: Record<string, VersionNumber> = { "2.3.0": "2.2.1", "2.2.1": "2.3.0" };
const translate = (object: Json, from: VersionNumber, to: VersionNumber): Json => {
  const canonical = locationType.up(clone(object), from, silentTranslation());
  return locationType.down(clone(canonical), to, silentTranslation()) as Json;
};

/** Example files not used as positive vectors, with the reason (asserted below, so the list cannot drift). */
const SKIPPED: Record<string, string> = {
  "2.3.0/location_example.json":
    "NOTICE.md DEFECT: EVSE.parking is a list of strings, not EVSEParking objects; the fixed copy from 2.3.0_release-2.3.0-bugfixes is used instead",
  "2.3.0/location_example_parking_garage_opening_hours.json":
    "NOTICE.md DEFECT: EVSE.parking is a list of strings; the fixed copy from 2.3.0_release-2.3.0-bugfixes is used instead",
  "2.2.1/location_put_example_add_evse.json":
    "not a valid EVSE (not listed in NOTICE.md): its connector lacks power_type, max_voltage, max_amperage, last_updated and physical_reference is a number; asserted to be rejected with those pointers, and accepted once repaired",
  "2.3.0/location_put_example_add_evse.json": "same as 2.2.1/location_put_example_add_evse.json",
};

/** Request URLs printed in the spec next to the PATCH examples (NOTICE.md). */
const PATCH_URLS: Record<string, string> = {
  "location_patch_example_location.json": "/NL/TNM/1012",
  "location_patch_example_remove_evse.json": "/NL/TNM/1012/3256",
  "location_patch_example_status.json": "/NL/TNM/1012/3255",
  "location_patch_example_tariff.json": "/NL/TNM/1012/3255/2",
};

const kindOf = (file: string): "location" | "patch" | "evse-put" | "hours" | "wrapper" =>
  file.startsWith("location_patch_example_")
    ? "patch"
    : file === "location_put_example_add_evse.json"
      ? "evse-put"
      : file.startsWith("location_hours_")
        ? "hours"
        : file.startsWith("location_energymix_") || file === "location_regularhours_example.json"
          ? "wrapper"
          : "location";

const exampleFiles = (version: string): string[] => readdirSync(path.join(EXAMPLES, version)).filter((f) => f.startsWith("location_")).sort();

const connector = (id: string, stamp: string): Json => ({
  id,
  standard: "IEC_62196_T2",
  format: "SOCKET",
  power_type: "AC_3_PHASE",
  max_voltage: 230,
  max_amperage: 16,
  tariff_ids: ["11"],
  last_updated: stamp,
});
const evse = (uid: string, connectorIds: string[], stamp: string): Json => ({
  uid,
  evse_id: `NL*TNM*E${uid}`,
  status: "AVAILABLE",
  connectors: connectorIds.map((id) => connector(id, stamp)),
  last_updated: stamp,
});
/** A valid 2.3.0 (and 2.2.1) Location. */
const baseLocation = (cc: string, pid: string, id: string, stamp = "2019-01-01T00:00:00Z"): Json => ({
  country_code: cc,
  party_id: pid,
  id,
  publish: true,
  name: "Base",
  address: "Street 1",
  city: "Town",
  postal_code: "1234 AB",
  country: "NLD",
  coordinates: { latitude: "52.370216", longitude: "4.895168" },
  parking_type: "ON_STREET",
  evses: [evse("3255", ["1", "2"], stamp), evse("3256", ["1"], stamp)],
  time_zone: "Europe/Amsterdam",
  last_updated: stamp,
});

const logLines = (h: Harness): Json[] => h.logs.map((l) => JSON.parse(l));

describe("locations module", () => {
  let h: Harness;
  /** owners of every example Location, plus NL/TNM (the PATCH examples) and our own party (pushes feeding the sender) */
  const owners = new Map<string, CredentialsRole>([["NLTNM", cpo("NL", "TNM")], ["NLGWY", cpo("NL", "GWY")], ["BEBEC", cpo("BE", "BEC")]]);
  for (const version of ["2.2.1", "2.3.0", "2.3.0_release-2.3.0-bugfixes"])
    for (const file of exampleFiles(version).filter((f) => kindOf(f) === "location")) {
      const { country_code, party_id } = read(version, file);
      owners.set(`${country_code}${party_id}`, cpo(country_code, party_id));
    }

  const put = (version: VersionNumber, rest: string, body: unknown) =>
    h.http.put(h.path(version, "RECEIVER", "locations", rest)).set("Authorization", h.auth).send(body as object);
  const patch = (version: VersionNumber, rest: string, body: unknown) =>
    h.http.patch(h.path(version, "RECEIVER", "locations", rest)).set("Authorization", h.auth).send(body as object);
  const get = (version: VersionNumber, rest: string) => h.http.get(h.path(version, "RECEIVER", "locations", rest)).set("Authorization", h.auth);
  const stored = (cc: string, pid: string, id: string) =>
    new OwnedCollection<Location>(h.gateway.store, "locations").get({ country_code: cc, party_id: pid }, id.toUpperCase());

  beforeAll(async () => {
    // The partner holds NL/GWY, which therefore cannot be one of ours (a party is held by one side): our party is NL/OUR.
    h = await startHarness({ plugins: [LocationsPlugin], localModules: [localLocations], modules: ["locations"], partnerRoles: [...owners.values()], party: { party_id: "OUR" } });
  });
  afterAll(() => h.close());

  describe("published examples", () => {
    it("uses every location example file of 2.2.1 and 2.3.0 except the listed ones", () => {
      const runAsPositive = ["2.2.1", "2.3.0"].flatMap((v) =>
        exampleFiles(v)
          .filter((f) => !SKIPPED[`${v}/${f}`])
          .map((f) => `${v}/${f}`),
      );
      const all = ["2.2.1", "2.3.0"].flatMap((v) => exampleFiles(v).map((f) => `${v}/${f}`));
      expect(all.filter((f) => !runAsPositive.includes(f)).sort()).toEqual(Object.keys(SKIPPED).sort());
      expect(runAsPositive.length).toBe(32);
    });

    const cases: [VersionNumber, string, string][] = [];
    for (const version of ["2.2.1", "2.3.0"] as VersionNumber[])
      for (const file of exampleFiles(version)) if (!SKIPPED[`${version}/${file}`]) cases.push([version, version, file]);
    // replacements of the defective v2.3.0 files, validated as 2.3.0
    cases.push(["2.3.0", "2.3.0_release-2.3.0-bugfixes", "location_example.json"]);
    cases.push(["2.3.0", "2.3.0_release-2.3.0-bugfixes", "location_example_parking_garage_opening_hours.json"]);

    it.each(cases.filter(([, , f]) => kindOf(f) === "location"))("%s %s/%s: PUT, GET equal, GET in the other version equals the translation", async (version, folder, file) => {
      const example = read(folder, file);
      const rest = `/${example.country_code}/${example.party_id}/${example.id}`;
      expect((await put(version, rest, example)).body).toMatchObject({ status_code: 1000 });
      const own = await get(version, rest);
      expect(own.status).toBe(200);
      expect(own.body.data).toEqual(example);
      const other = OTHER[version];
      expect((await get(other, rest)).body.data).toEqual(translate(example, version, other));
      // and the other way round: PUT in the other version, read back in this one
      const translated = translate(example, version, other);
      await put(other, rest, translated);
      expect((await get(version, rest)).body.data).toEqual(translate(translated, other, version));
    });

    it.each(cases.filter(([, , f]) => kindOf(f) === "wrapper" || kindOf(f) === "hours"))(
      "%s %s/%s: a Location carrying the fragment is accepted and comes back equal",
      async (version, folder, file) => {
        const fragment = read(folder, file);
        const body = { ...baseLocation("NL", "TNM", `FRAG-${file.length}`), ...(kindOf(file) === "hours" ? { opening_times: fragment } : fragment) };
        const rest = `/NL/TNM/${body.id}`;
        expect((await put(version, rest, body)).status).toBeLessThan(300);
        expect((await get(version, rest)).body.data).toEqual(body);
        expect((await get(OTHER[version], rest)).body.data).toEqual(translate(body, version, OTHER[version]));
      },
    );

    it.each(cases.filter(([, , f]) => kindOf(f) === "patch"))("%s %s/%s: PATCH after a PUT of a base Location", async (version, folder, file) => {
      const fragment = read(folder, file);
      expect((await put(version, "/NL/TNM/1012", baseLocation("NL", "TNM", "1012"))).status).toBeLessThan(300);
      const url = PATCH_URLS[file];
      const response = await patch(version, url, fragment);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status_code: 1000 });
      // the patched object carries the new values, the rest is unchanged
      const patched = (await get(version, url)).body.data;
      expect(patched).toMatchObject(fragment);
      // last_updated propagates to every parent
      const location = (await get(version, "/NL/TNM/1012")).body.data;
      expect(location.last_updated).toBe(fragment.last_updated);
      if (url.split("/").length > 4) expect(location.name).toBe("Base");
      if (url.split("/").length === 6) expect((await get(version, "/NL/TNM/1012/3255")).body.data.last_updated).toBe(fragment.last_updated);
      expect((await get(OTHER[version], "/NL/TNM/1012")).body.data).toEqual(translate(location, version, OTHER[version]));
    });

    it.each(["2.2.1", "2.3.0"] as VersionNumber[])("%s location_put_example_add_evse.json is rejected naming each defect, and accepted once repaired", async (version) => {
      const example = read(version, "location_put_example_add_evse.json");
      await put(version, "/NL/TNM/1012", baseLocation("NL", "TNM", "1012"));
      const rejected = await put(version, "/NL/TNM/1012/3256", example);
      expect(rejected.body.status_code).toBe(2001);
      for (const pointer of ["/connectors/0/power_type", "/connectors/0/max_voltage", "/connectors/0/max_amperage", "/connectors/0/last_updated", "/physical_reference"])
        expect(rejected.body.status_message).toContain(pointer);
      expect((await get(version, "/NL/TNM/1012/3256")).body.data.evse_id).toBe("NL*TNM*E3256");

      const repaired = {
        ...example,
        physical_reference: String(example.physical_reference),
        connectors: [{ ...example.connectors[0], power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16, last_updated: example.last_updated }],
      };
      const accepted = await put(version, "/NL/TNM/1012/3256", repaired);
      expect(accepted.status).toBe(200); // replaced the base's EVSE 3256
      expect((await get(version, "/NL/TNM/1012/3256")).body.data).toEqual(repaired);
      expect((await get(version, "/NL/TNM/1012")).body.data.last_updated).toBe(example.last_updated);
    });
  });

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

  describe("2.1.1", () => {
    const example = () => read("2.1.1-d2_inline-extracted", "mod_locations_06_example.json");

    it("PUT and GET round trip of the 2.1.1 example through the 2.1.1 receiver", async () => {
      const body = example();
      expect((await put("2.1.1", "/NL/TNM/LOC1", body)).status).toBe(201);
      expect((await get("2.1.1", "/NL/TNM/LOC1")).body.data).toEqual(body);
      // 2.1.1 has no owner fields: the path's owner fills them in going up
      const canonical = (await get("2.3.0", "/NL/TNM/LOC1")).body.data;
      expect(canonical).toMatchObject({ country_code: "NL", party_id: "TNM", publish: true, parking_type: "ON_STREET" });
      expect(canonical.type).toBeUndefined();
      expect(canonical.evses[0].connectors[0]).toMatchObject({ max_voltage: 220, max_amperage: 16, tariff_ids: ["11"] });
      expect(canonical.evses[0].connectors[0].voltage).toBeUndefined();
    });

    it("the 2.1.1 PATCH examples apply; without last_updated the time of receipt propagates", async () => {
      const location: Json = { ...example(), id: "1012" };
      location.evses[0].uid = "3255";
      await put("2.1.1", "/NL/TNM/1012", location);
      const before = Date.now() - 1000;
      const dir = "2.1.1-d2_inline-extracted";
      expect((await patch("2.1.1", "/NL/TNM/1012/3255", read(dir, "mod_locations_01_example_a_simple_status_update.json"))).status).toBe(200);
      expect((await patch("2.1.1", "/NL/TNM/1012", read(dir, "mod_locations_02_example_change_the_location_name.json"))).status).toBe(200);
      expect((await patch("2.1.1", "/NL/TNM/1012/3255/2", read(dir, "mod_locations_03_example_set_tariff_update.json"))).status).toBe(200);
      const old = (await get("2.1.1", "/NL/TNM/1012")).body.data;
      expect(old.name).toBe("Interparking Gent Zuid");
      expect(old.evses[0].status).toBe("CHARGING");
      expect(old.evses[0].connectors[1].tariff_id).toBe("15");
      expect(Date.parse(old.last_updated)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(old.evses[0].last_updated)).toBeGreaterThanOrEqual(before);
      expect((await get("2.3.0", "/NL/TNM/1012/3255/2")).body.data.tariff_ids).toEqual(["15"]);
    });

    it("ids of up to 39 characters in 2.1.1, 36 in 2.2+", async () => {
      const id39 = "L".repeat(39);
      expect((await put("2.1.1", `/NL/TNM/${id39}`, { ...example(), id: id39 })).status).toBe(201);
      const id37 = "M".repeat(37);
      const refused = await put("2.2.1", `/NL/TNM/${id37}`, baseLocation("NL", "TNM", id37));
      expect(refused.body.status_code).toBe(2001);
      expect(refused.body.status_message).toContain("/id");
    });

    it("a 2.1.1 Location without type or with a bad one is refused", async () => {
      const { type: _type, ...noType } = example();
      const missing = await put("2.1.1", "/BE/BEC/LOC1", noType);
      expect(missing.body.status_code).toBe(2001);
      expect(missing.body.status_message).toContain("/type");
      const bad = await put("2.1.1", "/BE/BEC/LOC1", { ...example(), type: "ALONG_MOTORWAY" });
      expect(bad.body.status_message).toContain("/type");
    });

    it("translates a 2.3.0 Location down to 2.1.1, logging and declaring every dropped field", async () => {
      const body: Json = {
        ...baseLocation("NL", "TNM", "DOWN"),
        publish: false,
        publish_allowed_to: [{ visual_number: "1", issuer: "X" }],
        state: "Noord-Holland",
        parking_type: "ALONG_MOTORWAY",
        facilities: ["CAFE", "METRO_STATION"],
        help_phone: "+31201234567",
        parking_places: [{ id: "P1", vehicle_types: ["PERSONAL_VEHICLE"], restricted_to_type: false, reservation_required: false }],
        energy_mix: { is_green_energy: false, environ_impact: [{ category: "CARBON_DIOXIDE", amount: 372 }, { category: "METHANE", amount: 1 }] },
      };
      body.evses[0].parking = [{ parking_id: "P1", evse_position: "LEFT" }];
      body.evses[0].accepted_service_providers = ["Some eMSP"];
      body.evses[0].capabilities = ["RESERVABLE", "CHIP_CARD_SUPPORT"];
      body.evses[0].parking_restrictions = ["EV_ONLY", "TAXIS"];
      body.evses[0].connectors[0] = { ...body.evses[0].connectors[0], max_electric_power: 11000, tariff_ids: ["A", "B"], capabilities: ["ISO_15118_2_PLUG_AND_CHARGE"] };
      expect((await put("2.3.0", "/NL/TNM/DOWN", body)).status).toBe(201);

      const old = (await get("2.1.1", "/NL/TNM/DOWN")).body.data;
      expect(old).toMatchObject({ id: "DOWN", type: "OTHER", facilities: ["CAFE"], energy_mix: { environ_impact: [{ source: "CARBON_DIOXIDE", amount: 372 }] } });
      for (const gone of ["country_code", "party_id", "publish", "publish_allowed_to", "state", "parking_type", "help_phone", "parking_places"]) expect(old[gone]).toBeUndefined();
      expect(old.evses[0]).toMatchObject({ capabilities: ["RESERVABLE"], parking_restrictions: ["EV_ONLY"] });
      expect(old.evses[0].parking).toBeUndefined();
      expect(old.evses[0].accepted_service_providers).toBeUndefined();
      expect(old.evses[0].connectors[0]).toMatchObject({ voltage: 230, amperage: 16, tariff_id: "A" });
      for (const gone of ["max_voltage", "max_amperage", "max_electric_power", "tariff_ids", "capabilities"]) expect(old.evses[0].connectors[0][gone]).toBeUndefined();

      const dropped = logLines(h)
        .filter((l) => l.msg === "field dropped by version translation" && l.version === "2.1.1" && l.object === "Location")
        .map((l) => String(l.field).replace(/^(evses\[\]\.)?(connectors\[\]\.)?/, ""));
      const declared = new Set(LOCATIONS_TRANSLATION_LOSSES.map((l) => l.field));
      for (const field of ["publish", "publish_allowed_to", "state", "parking_type", "help_phone", "parking_places", "facilities", "energy_mix.environ_impact", "parking", "accepted_service_providers", "capabilities", "parking_restrictions", "max_electric_power", "tariff_ids"])
        expect(dropped).toContain(field);
      for (const field of dropped) expect(declared.has(field)).toBe(true);
    });

    it("maps ParkingType and LocationType both ways", async () => {
      for (const [type, expected] of [["PARKING_LOT", "PARKING_LOT"], ["OTHER", undefined], ["UNKNOWN", undefined]] as const) {
        await put("2.1.1", "/BE/BEC/TYPES", { ...example(), id: "TYPES", type });
        expect((await get("2.3.0", "/BE/BEC/TYPES")).body.data.parking_type).toBe(expected);
        expect((await get("2.1.1", "/BE/BEC/TYPES")).body.data.type).toBe(expected ?? "UNKNOWN");
      }
    });
  });

  describe("sender sees child changes through the Location's last_updated", () => {
    // Our own backend reporting changes of our NL/GWY (POST /admin/v1/events, stored by the rules of a
    // partner's push): a partner cannot hold our party, and the sender serves ours.
    let own: Harness;
    const ADMIN = "admin-token-for-own-location-events";
    beforeAll(async () => {
      own = await startHarness({ plugins: [LocationsPlugin], localModules: [localLocations], modules: ["locations"], partnerRoles: [cpo("NL", "TNM")], adminToken: ADMIN });
    });
    afterAll(() => own.close());
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

describe("locations with a strictness: log partner", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      plugins: [LocationsPlugin],
      localModules: [localLocations],
      modules: ["locations"],
      strictness: "log",
      partnerRoles: [cpo("NL", "TNM")],
    });
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
