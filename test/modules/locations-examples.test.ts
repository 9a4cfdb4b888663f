// the fixtures first: they load the harness, which loads reflect-metadata (the plugin's decorators need it)
import { baseLocation, exampleFiles, kindOf, OTHER, PATCH_URLS, read, receiverRequests, SKIPPED, startLocationsReceiver, translate } from "./locations.fixtures";
import type { Harness } from "../support/module-harness";
import type { VersionNumber } from "../../core/protocol/types";

describe("locations module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLocationsReceiver();
  });
  afterAll(() => h.close());
  const { put, patch, get } = receiverRequests(() => h);

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
});
