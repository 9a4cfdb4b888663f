import "reflect-metadata";
import type { VersionNumber } from "../../config/types";
import { startHarness, type Harness } from "../support/module-harness";
import { cdrOf, sessionOf, stationAddress, t2Connector, type ChargingPlace } from "../support/ocpi-objects";
import { LocationsPlugin } from "../../plugins/locations/module";
import { SessionsPlugin } from "../../plugins/sessions/module";
import { CdrsPlugin } from "../../plugins/cdrs/module";
import { TariffsPlugin } from "../../plugins/tariffs/module";
import { TokensPlugin } from "../../plugins/tokens/module";
import { CommandsPlugin } from "../../plugins/commands/module";
import { ChargingProfilesPlugin } from "../../plugins/chargingprofiles/module";
import { localLocations } from "../../adapters/local/locations";
import { localSessions } from "../../adapters/local/sessions";
import { localCdrs } from "../../adapters/local/cdrs";
import { localTariffs } from "../../adapters/local/tariffs";
import { localTokens } from "../../adapters/local/tokens";
import { localCommands } from "../../adapters/local/commands";
import { localChargingProfiles } from "../../adapters/local/chargingprofiles";

/**
 * Issue #8 item 7: OCPI strings are printable (OCPI 2.2.1 Types: `string`
 * "printable UTF-8, no control chars", `CiString` printable ASCII), and
 * CiString ids in paths match case-insensitively on every route, while the
 * object keeps the case it was written with.
 */

type Json = Record<string, any>;

const STAMP = "2025-03-01T10:00:00Z";
const LATER = "2025-03-01T11:00:00Z";
const THEIRS = { country_code: "NL", party_id: "ABC" };
const OURS = { country_code: "NL", party_id: "GWY" };
const RESPONSE_URL = "http://127.0.0.1:9/callbacks/1";

const role = (r: "CPO" | "EMSP") => ({ ...THEIRS, role: r, business_details: { name: "ABC" } });

const connector = (id: string) => t2Connector(id, STAMP);
const evse = (uid: string) => ({ uid, status: "AVAILABLE", connectors: [connector("c1")], last_updated: STAMP });
const location = (owner: Json, id: string, extra: Json = {}): Json => ({
  ...owner,
  id,
  publish: true,
  ...stationAddress(1),
  time_zone: "Europe/Amsterdam",
  evses: [evse("evse1")],
  last_updated: STAMP,
  ...extra,
});
/** 2.1.1: no owner fields or publish, a required type, connectors with voltage and amperage */
const location211 = (id: string, extra: Json = {}) => {
  const { country_code, party_id, publish, evses, ...rest } = location(THEIRS, id, extra);
  const wire = (c: Json) => ({ ...c, voltage: c.max_voltage, amperage: c.max_amperage, max_voltage: undefined, max_amperage: undefined });
  return { ...rest, type: "ON_STREET", evses: evses.map((e: Json) => ({ ...e, connectors: e.connectors.map(wire) })) };
};
/** where THEIRS's sessions and CDRs take place: connector c1 of evse1 of `location(THEIRS, "loc1")` */
const EVSE1: ChargingPlace = { locationId: "loc1", evseUid: "evse1", evseId: "NL*ABC*E1", connectorId: "c1", address: "Main street 1" };
const cdrToken = { ...THEIRS, uid: "A1B2C3D4", type: "RFID", contract_id: "NL-ABC-C1" };
const session = (id: string, extra: Json = {}) => ({
  ...sessionOf({ owner: THEIRS, id, status: "ACTIVE", start: STAMP, kwh: 1, token: cdrToken, place: EVSE1 }),
  ...extra,
});
const tariff = (id: string, extra: Json = {}) => ({
  ...THEIRS,
  id,
  currency: "EUR",
  elements: [{ price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] }],
  tax_included: "NO",
  last_updated: STAMP,
  ...extra,
});
const cdr = (id: string, extra: Json = {}) => ({
  ...cdrOf({ owner: THEIRS, id, start: STAMP, end: LATER, kwh: 5, cost: 2, token: cdrToken, place: EVSE1 }),
  ...extra,
});
const token = (uid: string, extra: Json = {}) => ({
  ...THEIRS,
  uid,
  type: "RFID",
  contract_id: "NL-ABC-C1",
  issuer: "ABC eMSP",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: STAMP,
  ...extra,
});
const token211 = (uid: string, extra: Json = {}) => ({
  uid,
  type: "RFID",
  auth_id: "NL-ABC-C1",
  issuer: "ABC eMSP",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: STAMP,
  ...extra,
});

describe("printable strings and case-insensitive CiStrings", () => {
  let h: Harness;
  const url = (role: "SENDER" | "RECEIVER", module: string, rest = "", version: VersionNumber = "2.3.0") =>
    h.path(version, role, module, rest);
  const call = (method: "get" | "put" | "patch" | "post" | "delete", path: string, body?: unknown) => {
    const r = h.http[method](path).set("Authorization", h.auth);
    return body === undefined ? r : r.send(body as object);
  };
  const expectOk = (res: { body: Json }) => expect(res.body).toMatchObject({ status_code: 1000 });
  const expect2001 = (res: { status: number; body: Json }, field: string) => {
    expect(res.status).toBeLessThan(500);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain(`${field}: must be printable`);
  };

  beforeAll(async () => {
    h = await startHarness({
      plugins: [LocationsPlugin, SessionsPlugin, CdrsPlugin, TariffsPlugin, TokensPlugin, CommandsPlugin, ChargingProfilesPlugin],
      localModules: [localLocations, localSessions, localCdrs, localTariffs, localTokens, localCommands, localChargingProfiles],
      modules: ["locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles"],
      partnerRoles: [role("CPO"), role("EMSP")],
      seed: {
        locations: [location(OURS, "Ours1")],
        tokens: [{ ...token("OurTok1"), ...OURS }],
        // the partner's driver charges at our Location
        sessions: [{ ...session("OurSes1", { location_id: "Ours1" }), ...OURS }],
      },
    });
  });
  afterAll(() => h.close());

  describe("CiString ids in paths match whatever their case", () => {
    it("tokens: PUT tok1, GET TOK1 finds it, PATCH Tok1 changes the same token, PUT TOK1 replaces it", async () => {
      expect((await call("put", url("RECEIVER", "tokens", "/NL/ABC/tok1?type=RFID"), token("tok1"))).status).toBe(201);
      const found = await call("get", url("RECEIVER", "tokens", "/nl/abc/TOK1?type=RFID"));
      expectOk(found);
      expect(found.body.data.uid).toBe("tok1");

      expectOk(await call("patch", url("RECEIVER", "tokens", "/Nl/aBc/Tok1?type=RFID"), { valid: false, last_updated: LATER }));
      const patched = await call("get", url("RECEIVER", "tokens", "/NL/ABC/tok1?type=RFID"));
      expect(patched.body.data).toMatchObject({ uid: "tok1", valid: false, last_updated: LATER });

      // the same token again, spelled otherwise: replaced (200), not a second one (201); it keeps the new spelling
      const again = await call("put", url("RECEIVER", "tokens", "/NL/ABC/TOK1?type=RFID"), token("TOK1"));
      expect(again.status).toBe(200);
      expect((await call("get", url("RECEIVER", "tokens", "/NL/ABC/tok1?type=RFID"))).body.data.uid).toBe("TOK1");
    });

    it("tokens in 2.1.1 reach the same token", async () => {
      expect((await call("put", url("RECEIVER", "tokens", "/NL/ABC/TOK211?type=RFID"), token("TOK211"))).status).toBe(201);
      const found = await call("get", url("RECEIVER", "tokens", "/NL/ABC/Tok211", "2.1.1"));
      expectOk(found);
      expect(found.body.data.uid).toBe("TOK211");
    });

    it("tokens sender: authorize finds our token whatever the case of its uid", async () => {
      const res = await call("post", url("SENDER", "tokens", "/OURTOK1/authorize?type=RFID"));
      expectOk(res);
      expect(res.body.data).toMatchObject({ allowed: "ALLOWED", token: { uid: "OurTok1" } });
    });

    it("locations: Location, EVSE and Connector are found, patched and replaced under any case", async () => {
      expect((await call("put", url("RECEIVER", "locations", "/NL/ABC/loc1"), location(THEIRS, "loc1"))).status).toBe(201);
      expect((await call("get", url("RECEIVER", "locations", "/nl/abc/LOC1"))).body.data.id).toBe("loc1");
      expect((await call("get", url("RECEIVER", "locations", "/NL/ABC/LOC1/EVSE1"))).body.data.uid).toBe("evse1");
      expect((await call("get", url("RECEIVER", "locations", "/NL/ABC/Loc1/Evse1/C1"))).body.data.id).toBe("c1");

      expectOk(await call("patch", url("RECEIVER", "locations", "/NL/ABC/LOC1/EVSE1"), { status: "CHARGING", last_updated: LATER }));
      expectOk(await call("patch", url("RECEIVER", "locations", "/NL/ABC/LOC1/EVSE1/C1"), { max_amperage: 16, last_updated: LATER }));
      expectOk(await call("patch", url("RECEIVER", "locations", "/NL/ABC/LOC1"), { name: "Renamed", last_updated: LATER }));
      const patched = (await call("get", url("RECEIVER", "locations", "/NL/ABC/loc1"))).body.data;
      expect(patched).toMatchObject({ id: "loc1", name: "Renamed" });
      expect(patched.evses).toHaveLength(1);
      expect(patched.evses[0]).toMatchObject({ uid: "evse1", status: "CHARGING", connectors: [{ id: "c1", max_amperage: 16 }] });

      // PUT of the EVSE and of the Connector under other spellings replace them: still one of each
      expect((await call("put", url("RECEIVER", "locations", "/NL/ABC/LOC1/EVSE1"), evse("EVSE1"))).status).toBe(200);
      expect((await call("put", url("RECEIVER", "locations", "/NL/ABC/LOC1/evse1/C1"), connector("C1"))).status).toBe(200);
      const replaced = (await call("get", url("RECEIVER", "locations", "/NL/ABC/LOC1"))).body.data;
      expect(replaced.evses.map((e: Json) => e.uid)).toEqual(["EVSE1"]);
      expect(replaced.evses[0].connectors.map((c: Json) => c.id)).toEqual(["C1"]);
      expect((await call("put", url("RECEIVER", "locations", "/NL/ABC/LOC1"), location(THEIRS, "LOC1"))).status).toBe(200);
    });

    it("locations sender: our Location by id whatever the case", async () => {
      const res = await call("get", url("SENDER", "locations", "/OURS1"));
      expectOk(res);
      expect(res.body.data.id).toBe("Ours1");
    });

    it("commands and charging profiles reach our session whatever the case of its id", async () => {
      const stop = (sessionId: string) =>
        call("post", url("RECEIVER", "commands", "/STOP_SESSION"), { response_url: RESPONSE_URL, session_id: sessionId });
      expect((await stop("oursES1")).body.data.result).toBe("ACCEPTED");
      expect((await stop("NoSuchSession")).body.data.result).toBe("UNKNOWN_SESSION");

      const profile = (sessionId: string) =>
        call("put", url("RECEIVER", "chargingprofiles", `/${sessionId}`), { charging_profile: { charging_rate_unit: "A" }, response_url: RESPONSE_URL });
      expect((await profile("OURSES1")).body.data.result).toBe("ACCEPTED");
      expect((await profile("NoSuchSession")).body.data.result).toBe("UNKNOWN_SESSION");
    });

    it("sessions: PUT ses1, GET SES1, PATCH Ses1 changes the same session", async () => {
      expect((await call("put", url("RECEIVER", "sessions", "/NL/ABC/ses1"), session("ses1"))).status).toBe(201);
      expect((await call("get", url("RECEIVER", "sessions", "/nl/abc/SES1"))).body.data.id).toBe("ses1");
      expectOk(await call("patch", url("RECEIVER", "sessions", "/NL/ABC/Ses1"), { kwh: 5, last_updated: LATER }));
      expect((await call("get", url("RECEIVER", "sessions", "/NL/ABC/ses1"))).body.data).toMatchObject({ id: "ses1", kwh: 5 });
      expect((await call("put", url("RECEIVER", "sessions", "/NL/ABC/SES1"), session("SES1"))).status).toBe(200);
    });

    it("tariffs: PUT tar1, GET TAR1, PUT Tar1 replaces it, DELETE tAR1 removes it", async () => {
      expect((await call("put", url("RECEIVER", "tariffs", "/NL/ABC/tar1"), tariff("tar1"))).status).toBe(201);
      expect((await call("get", url("RECEIVER", "tariffs", "/nl/abc/TAR1"))).body.data.id).toBe("tar1");
      expect((await call("put", url("RECEIVER", "tariffs", "/NL/ABC/Tar1"), tariff("Tar1"))).status).toBe(200);
      expectOk(await call("delete", url("RECEIVER", "tariffs", "/NL/ABC/tAR1")));
      expect((await call("get", url("RECEIVER", "tariffs", "/NL/ABC/tar1"))).status).toBe(404);
    });

    it("cdrs: a CDR posted as cdr1 is found at CDR1, and cannot be posted again as CDR1 with other content", async () => {
      expect((await call("post", url("RECEIVER", "cdrs"), cdr("cdr1"))).status).toBe(201);
      const found = await call("get", url("RECEIVER", "cdrs", "/nl/abc/CDR1"));
      expectOk(found);
      expect(found.body.data.id).toBe("cdr1");
      const other = await call("post", url("RECEIVER", "cdrs"), cdr("CDR1", { total_energy: 6 }));
      expect(other.body.status_code).toBe(2001);
    });
  });

  describe("strings with control characters: 2001 naming the field, nothing stored", () => {
    it("tokens: BEL in issuer (2.3.0 and 2.1.1)", async () => {
      expect2001(await call("put", url("RECEIVER", "tokens", "/NL/ABC/bel1?type=RFID"), token("bel1", { issuer: "ABC\u0007" })), "/issuer");
      expect((await call("get", url("RECEIVER", "tokens", "/NL/ABC/bel1?type=RFID"))).status).toBe(404);
      expect2001(await call("put", url("RECEIVER", "tokens", "/NL/ABC/bel2", "2.1.1"), token211("bel2", { issuer: "ABC\u0007" })), "/issuer");
      expect((await call("get", url("RECEIVER", "tokens", "/NL/ABC/bel2", "2.1.1"))).status).toBe(404);
    });

    it("tokens: a PATCH with a control character leaves the token as it was", async () => {
      await call("put", url("RECEIVER", "tokens", "/NL/ABC/keep1?type=RFID"), token("keep1"));
      expect2001(await call("patch", url("RECEIVER", "tokens", "/NL/ABC/keep1?type=RFID"), { issuer: "x\ty", last_updated: LATER }), "/issuer");
      expect((await call("get", url("RECEIVER", "tokens", "/NL/ABC/keep1?type=RFID"))).body.data).toMatchObject({ issuer: "ABC eMSP", last_updated: STAMP });
    });

    it.each([
      ["a tab in address", { address: "Main\tstreet 1" }, "/address"],
      ["a line feed in a DisplayText", { directions: [{ language: "en", text: "left\nthen right" }] }, "/directions/0/text"],
      ["BEL in an image URL", { images: [{ url: "https://img.example/a\u0007.png", category: "CHARGER", type: "png" }] }, "/images/0/url"],
      ["a C1 control (NEL) in a name", { name: "Station\u0085" }, "/name"],
      ["a line separator (U+2028) in city", { city: "Utre\u2028cht" }, "/city"],
      ["a lone surrogate in a business name", { operator: { name: "Op\ud800" } }, "/operator/name"],
      ["a tab in an open enumeration (2.3.0 facilities)", { facilities: ["CAFE\t"] }, "/facilities/0"],
    ])("locations: %s", async (_what, extra, field) => {
      expect2001(await call("put", url("RECEIVER", "locations", "/NL/ABC/badloc"), location(THEIRS, "badloc", extra)), field);
      expect((await call("get", url("RECEIVER", "locations", "/NL/ABC/badloc"))).status).toBe(404);
    });

    it("locations 2.1.1 and 2.2.1: the same rule in every version", async () => {
      const bad = { address: "Main\rstreet" };
      expect2001(await call("put", url("RECEIVER", "locations", "/NL/ABC/badloc", "2.2.1"), location(THEIRS, "badloc", bad)), "/address");
      const res211 = await call("put", url("RECEIVER", "locations", "/NL/ABC/badloc", "2.1.1"), location211("badloc", bad));
      expect2001(res211, "/address");
      // that is the only problem of the body
      expect(res211.body.status_message).not.toContain(";");
      expect((await call("get", url("RECEIVER", "locations", "/NL/ABC/badloc"))).status).toBe(404);
    });

    it("UTF-8 text stays allowed (2.3.0 and 2.1.1)", async () => {
      const utf8 = { name: "Zürich Hauptbahnhof – 駅", city: "München" };
      expect((await call("put", url("RECEIVER", "locations", "/NL/ABC/utf1"), location(THEIRS, "utf1", utf8))).status).toBe(201);
      expectOk(await call("put", url("RECEIVER", "locations", "/NL/ABC/utf2", "2.1.1"), location211("utf2", utf8)));
      expect((await call("get", url("RECEIVER", "locations", "/NL/ABC/utf2"))).body.data).toMatchObject(utf8);
    });

    it("sessions: a carriage return in meter_id", async () => {
      expect2001(await call("put", url("RECEIVER", "sessions", "/NL/ABC/badses"), session("badses", { meter_id: "M1\r" })), "/meter_id");
      expect((await call("get", url("RECEIVER", "sessions", "/NL/ABC/badses"))).status).toBe(404);
    });

    it("cdrs: NUL in remark", async () => {
      expect2001(await call("post", url("RECEIVER", "cdrs"), cdr("badcdr", { remark: "ok\u0000" })), "/remark");
      expect((await call("get", url("RECEIVER", "cdrs", "/NL/ABC/badcdr"))).status).toBe(404);
    });

    it("tariffs: a line feed in tariff_alt_text", async () => {
      const bad = tariff("badtar", { tariff_alt_text: [{ language: "en", text: "0.30/kWh\n" }] });
      expect2001(await call("put", url("RECEIVER", "tariffs", "/NL/ABC/badtar"), bad), "/tariff_alt_text/0/text");
      expect((await call("get", url("RECEIVER", "tariffs", "/NL/ABC/badtar"))).status).toBe(404);
    });

    it("commands: BEL in response_url", async () => {
      const res = await call("post", url("RECEIVER", "commands", "/STOP_SESSION"), { response_url: `${RESPONSE_URL}\u0007`, session_id: "ses1" });
      expect2001(res, "/response_url");
    });

    it("chargingprofiles: a tab in response_url", async () => {
      const res = await call("put", url("RECEIVER", "chargingprofiles", "/ses1"), {
        charging_profile: { charging_rate_unit: "A" },
        response_url: `${RESPONSE_URL}\t`,
      });
      expect2001(res, "/response_url");
    });

    it("credentials: BEL in a business name; the registration stays as it was", async () => {
      expect((await call("put", url("RECEIVER", "tokens", "/NL/ABC/tokcred?type=RFID"), token("tokcred"))).status).toBe(201);
      const res = await call("put", "/ocpi/2.3.0/credentials", {
        token: "a-new-token-0123456789",
        url: "http://127.0.0.1:9/versions",
        roles: [{ ...role("EMSP"), business_details: { name: "ABC\u0007" } }],
      });
      expect2001(res, "/roles/0/business_details/name");
      // nothing rotated: the partner's token still works
      expectOk(await call("get", url("RECEIVER", "tokens", "/NL/ABC/tokcred?type=RFID")));
    });
  });
});
