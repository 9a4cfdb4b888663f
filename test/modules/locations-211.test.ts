// the fixtures first: they load the harness, which loads reflect-metadata (the plugin's decorators need it)
import { baseLocation, logLines, read, receiverRequests, startLocationsReceiver, type Json } from "./locations.fixtures";
import type { Harness } from "../support/module-harness";
import { LOCATIONS_TRANSLATION_LOSSES } from "../../plugins/locations/translate";

describe("locations module", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startLocationsReceiver();
  });
  afterAll(() => h.close());
  const { put, patch, get } = receiverRequests(() => h);

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
});
