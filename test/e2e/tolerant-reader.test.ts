import "reflect-metadata";
import { ADMIN_TOKEN, type Json, LOCATIONS, offSpecCdr, offSpecLocation, offSpecSession, ownerlessToken, REJECT, REPAIR, STAMP, startWorld, type World } from "./tolerant-reader.fixtures";
import type { Gateway } from "../../app/gateway";
import { removeTempDirs } from "../support/gateway-config";
import { ocpiRequest, type HttpResult } from "../support/gateway-process";
import type { OffSpecPartner } from "../support/off-spec-partner";
import { LocationsClient } from "../../plugins/locations/client";

/**
 * Issue #9 item 6, end to end: a hub's objects that are slightly off the
 * spec in the ways seen in the field (weekday as "1", twentyfourseven
 * missing, related_locations[].name a list, facility SHOPPING_MALL, a
 * cdr_token without owner, a cdr_location without address fields, numbers
 * as strings) are served by two 2.2.1 CPOs on loopback that no one here
 * wrote. An eMSP gateway pulls them and takes the same objects pushed to
 * its receivers: from the partner configured `strictness: repair` every one
 * is imported and each repair is visible in GET /admin/v1/repairs and
 * logged once; from the partner configured `strictness: reject` they are
 * rejected, counted, and refused with 2001 naming the field. The repair
 * partner also has `send_nulls_for_optional`: a Token pushed to it carries
 * every optional key of the 2.2.1 Token.
 */

/* ---------------------------------------------------------------- the eMSP gateway */

// Each test has its own world (tolerant-reader.fixtures.ts): partners, gateway, store, registrations,
// log lines and requests the partners received. A test makes every pull, push and command it reads.
let world: World | undefined;
let lines: Json[];
let gateway: Gateway;
let url: string;
let repairPartner: OffSpecPartner;
let rejectPartner: OffSpecPartner;
let logPartner: OffSpecPartner;

const admin = (method: string, route: string, body?: unknown): Promise<HttpResult> =>
  ocpiRequest(method, `${url}/admin/v1${route}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body });
const sync = async (partner: string, module: string): Promise<Json> => {
  const res = await admin("POST", `/sync/${partner}/${module}`);
  expect(res.body.status_code).toBe(1000);
  return res.body.data;
};
/** The repair partner's lists pulled: Locations first, as the CDRs' missing address fields come from the Location held for their id. */
const pullFromRepairing = async () => ({
  locations: await sync("repairing", "locations"),
  sessions: await sync("repairing", "sessions"),
  cdrs: await sync("repairing", "cdrs"),
});
/** A call of the partner on our 2.2.1 receiver interface, with the token we gave it. */
const asPartner = (partner: OffSpecPartner, method: string, path: string, body?: unknown): Promise<HttpResult> =>
  ocpiRequest(method, `${url}/ocpi/2.2.1/receiver/${path}`, { token: partner.tokenToGateway!, body });
const repairLines = () => lines.filter((l) => l.msg === "field repaired (strictness: repair)");

beforeEach(async () => {
  world = await startWorld();
  ({ lines, gateway, url, repairPartner, rejectPartner, logPartner } = world);
});

afterEach(async () => {
  await world?.close();
  world = undefined;
  removeTempDirs();
});

/* ---------------------------------------------------------------- pulls */

describe("sync pulls of off-spec objects", () => {
  it("strictness repair: every Location, Session and CDR is imported", async () => {
    const pulled = await pullFromRepairing();
    expect(pulled.locations).toMatchObject({ objects: LOCATIONS, rejected: 0 });
    expect(pulled.sessions).toMatchObject({ objects: 2, rejected: 0 });
    expect(pulled.cdrs).toMatchObject({ objects: 2, rejected: 1 });
    const skipped = lines.find((l) => l.msg === "pulled object rejected" && l.partner === "repairing");
    expect(skipped).toMatchObject({ id: "CDR3", problems: expect.stringContaining("/cdr_location/address") });

    const location = (await asPartner(repairPartner, "GET", "locations/NL/QRK/LOC2")).body.data;
    expect(location.opening_times).toEqual({
      twentyfourseven: false,
      regular_hours: [
        { weekday: 1, period_begin: "08:00", period_end: "20:00" },
        { weekday: 2, period_begin: "08:00", period_end: "20:00" },
      ],
    });
    expect(location.facilities).toEqual(["MALL", "WIFI"]);
    expect(location.related_locations[0].name).toEqual({ language: "nl", text: "Ingang" });

    const session = (await asPartner(repairPartner, "GET", "sessions/NL/QRK/SES1")).body.data;
    expect(session.cdr_token).toEqual({ ...ownerlessToken, ...REPAIR });

    const cdr = (await asPartner(repairPartner, "GET", "cdrs/NL/QRK/CDR1")).body.data;
    expect(cdr.cdr_location).toMatchObject({ id: "LOC1", address: "Main street 1", city: "Utrecht", country: "NLD" });
    expect(cdr.total_time).toBe(0.5);
  });

  it("each repair is visible in GET /admin/v1/repairs per partner, type and field, with its count", async () => {
    await pullFromRepairing();
    const res = await admin("GET", "/repairs");
    expect(res.status).toBe(200);
    const repairs: Json[] = res.body.data;
    const count = (type: string, field: string) => repairs.find((r) => r.partner === "repairing" && r.type === type && r.field === field);
    expect(count("Location", "/opening_times/regular_hours/*/weekday")).toMatchObject({ count: 2 * LOCATIONS, repair: "number sent as a string: converted" });
    expect(count("Location", "/opening_times/twentyfourseven")).toMatchObject({ count: LOCATIONS, repair: expect.stringContaining("set to false") });
    expect(count("Location", "/related_locations/*/name")).toMatchObject({ count: LOCATIONS, repair: expect.stringContaining("first element kept") });
    expect(count("Location", "/facilities/*")).toMatchObject({ count: LOCATIONS, repair: "SHOPPING_MALL mapped to its synonym MALL" });
    expect(count("Session", "/cdr_token/country_code")).toMatchObject({ count: 2, repair: expect.stringContaining("party the object came from") });
    expect(count("Session", "/cdr_token/party_id")).toMatchObject({ count: 2 });
    for (const field of ["address", "city", "country"])
      expect(count("CDR", `/cdr_location/${field}`)).toMatchObject({ count: 2, repair: expect.stringContaining("Location held for its id") });
    expect(count("CDR", "/total_time")).toMatchObject({ count: 2 });
    // nothing is counted for the partner whose objects are not repaired
    expect(repairs.filter((r) => r.partner === "rejecting")).toEqual([]);
  });

  it("each repair is logged once per partner, type and field, without the values", async () => {
    await pullFromRepairing();
    const logged = repairLines();
    const keys = logged.map((l) => `${l.partner} ${l.type} ${l.field} ${l.repair}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain("repairing Location /facilities/* SHOPPING_MALL mapped to its synonym MALL");
    for (const line of logged) {
      const text = JSON.stringify(line);
      for (const value of ["RFID0001", "DE-EMS-C0001", "Main street", "Utrecht", "Ingang"]) expect(text).not.toContain(value);
    }
  });

  it("strictness reject: the same objects are rejected and counted, nothing stored", async () => {
    expect(await sync("rejecting", "locations")).toMatchObject({ objects: 0, rejected: LOCATIONS });
    expect(await sync("rejecting", "sessions")).toMatchObject({ objects: 0, rejected: 2 });
    expect(await sync("rejecting", "cdrs")).toMatchObject({ objects: 0, rejected: 3 });
    const rejected = lines.filter((l) => l.msg === "pulled object rejected" && l.partner === "rejecting");
    expect(rejected.find((l) => l.module === "locations")!.problems).toContain("/opening_times/regular_hours/0/weekday");
    expect(rejected.find((l) => l.module === "sessions")!.problems).toContain("/cdr_token/country_code");
    expect(rejected.find((l) => l.module === "cdrs")!.problems).toContain("/cdr_location/address");
    expect((await asPartner(rejectPartner, "GET", "locations/NL/QRR/LOC1")).status).toBe(404);
  });

  it("strictness log: the same objects are taken as they came, as receivers take them, and logged", async () => {
    expect(await sync("logging", "locations")).toMatchObject({ objects: LOCATIONS, rejected: 0 });
    const stored = (await asPartner(logPartner, "GET", "locations/NL/QRL/LOC1")).body.data;
    expect(stored.opening_times.regular_hours[0].weekday).toBe("1");
    expect(stored.opening_times).not.toHaveProperty("twentyfourseven");
    const warning = lines.find((l) => l.msg === "accepted an invalid Location (strictness: log)" && l.partner === "logging");
    expect(JSON.stringify(warning!.issues)).toContain("/opening_times/regular_hours/0/weekday");
    expect((await admin("GET", "/repairs")).body.data.filter((r: Json) => r.partner === "logging")).toEqual([]);
  });
});

/* ---------------------------------------------------------------- receivers */

describe("off-spec objects pushed to our receivers", () => {
  it("strictness repair: a Location, a Session and a CDR are accepted repaired", async () => {
    const put = await asPartner(repairPartner, "PUT", "locations/NL/QRK/LOC9", offSpecLocation(REPAIR, "LOC9"));
    expect(put.body.status_code).toBe(1000);
    const stored = (await asPartner(repairPartner, "GET", "locations/NL/QRK/LOC9")).body.data;
    expect(stored.opening_times.twentyfourseven).toBe(false);
    expect(stored.facilities).toEqual(["MALL", "WIFI"]);

    expect((await asPartner(repairPartner, "PUT", "sessions/NL/QRK/SES9", offSpecSession(REPAIR, "SES9"))).body.status_code).toBe(1000);
    expect((await asPartner(repairPartner, "POST", "cdrs", offSpecCdr(REPAIR, "CDR9", "LOC9"))).body.status_code).toBe(1000);
    const cdr = (await asPartner(repairPartner, "GET", "cdrs/NL/QRK/CDR9")).body.data;
    expect(cdr.cdr_location).toMatchObject({ id: "LOC9", address: "Main street 1", city: "Utrecht", country: "NLD" });
  });

  it("strictness repair: a CdrLocation of a Location the gateway does not hold cannot be repaired: 2001 naming the field", async () => {
    const res = await asPartner(repairPartner, "POST", "cdrs", offSpecCdr(REPAIR, "CDR8", "UNKNOWN-LOC"));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/cdr_location/address");
    expect((await asPartner(repairPartner, "GET", "cdrs/NL/QRK/CDR8")).status).toBe(404);
  });

  it("strictness repair: a string where a DisplayText is required gets language en, a single object becomes a list", async () => {
    const location = offSpecLocation(REPAIR, "LOC7");
    location.related_locations = { latitude: "52.090740", longitude: "5.121430", name: "Ingang" };
    expect((await asPartner(repairPartner, "PUT", "locations/NL/QRK/LOC7", location)).body.status_code).toBe(1000);
    const stored = (await asPartner(repairPartner, "GET", "locations/NL/QRK/LOC7")).body.data;
    expect(stored.related_locations).toEqual([{ latitude: "52.090740", longitude: "5.121430", name: { language: "en", text: "Ingang" } }]);
  });

  it("strictness repair: a boolean as a string, an enum value in the wrong case, unknown values of an optional field and of a list", async () => {
    const location: Json = {
      ...offSpecLocation(REPAIR, "LOC6"),
      publish: "true",
      parking_type: "ROOFTOP",
      facilities: ["DOG_PARK", "wifi"],
    };
    location.evses[0].status = "available";
    expect((await asPartner(repairPartner, "PUT", "locations/NL/QRK/LOC6", location)).body.status_code).toBe(1000);
    const stored = (await asPartner(repairPartner, "GET", "locations/NL/QRK/LOC6")).body.data;
    expect(stored.publish).toBe(true);
    expect(stored.evses[0].status).toBe("AVAILABLE");
    expect(stored.facilities).toEqual(["WIFI"]);
    expect(stored).not.toHaveProperty("parking_type");
    const repairs: Json[] = (await admin("GET", "/repairs")).body.data;
    const repairOf = (field: string) => repairs.filter((r) => r.partner === "repairing" && r.type === "Location" && r.field === field).map((r) => r.repair);
    expect(repairOf("/publish")).toEqual(["boolean sent as a string: converted"]);
    expect(repairOf("/evses/*/status")).toEqual(["value in the wrong letter case: mapped to AVAILABLE"]);
    expect(repairOf("/parking_type")).toEqual(["unknown value of an optional field: dropped"]);
    expect(repairOf("/facilities/*")).toEqual(
      expect.arrayContaining(["unknown value: dropped from the list", "value in the wrong letter case: mapped to WIFI"]),
    );
    // the partner's unknown values are not in the log
    expect(JSON.stringify(repairLines())).not.toMatch(/ROOFTOP|DOG_PARK/);
  });

  it("strictness repair: an unknown value of a required enumeration is not repaired: 2001 naming the field", async () => {
    const location = offSpecLocation(REPAIR, "LOC5");
    location.evses[0].status = "WORKING";
    const res = await asPartner(repairPartner, "PUT", "locations/NL/QRK/LOC5", location);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/evses/0/status");
    expect((await asPartner(repairPartner, "GET", "locations/NL/QRK/LOC5")).status).toBe(404);
  });

  it("strictness reject: the same objects are refused with 2001 naming the field, nothing stored", async () => {
    const location = await asPartner(rejectPartner, "PUT", "locations/NL/QRR/LOC9", offSpecLocation(REJECT, "LOC9"));
    expect(location.body.status_code).toBe(2001);
    expect(location.body.status_message).toContain("/opening_times/regular_hours/0/weekday");
    expect(location.body.status_message).toContain("/facilities/0");
    const session = await asPartner(rejectPartner, "PUT", "sessions/NL/QRR/SES9", offSpecSession(REJECT, "SES9"));
    expect(session.body.status_code).toBe(2001);
    expect(session.body.status_message).toContain("/cdr_token/country_code");
    const cdr = await asPartner(rejectPartner, "POST", "cdrs", offSpecCdr(REJECT, "CDR9"));
    expect(cdr.body.status_code).toBe(2001);
    expect(cdr.body.status_message).toContain("/cdr_location/address");
    expect((await asPartner(rejectPartner, "GET", "locations/NL/QRR/LOC9")).status).toBe(404);
  });
});

/* ---------------------------------------------------------------- answers to our requests */

describe("answers to our requests", () => {
  const startSession = {
    token: { country_code: "DE", party_id: "EMS", uid: "TOK2", type: "RFID", contract_id: "DE-EMS-CTOK2", issuer: "EMS", valid: true, whitelist: "ALLOWED", last_updated: STAMP },
    location_id: "LOC1",
    evse_uid: "EVSE1",
  };

  it("strictness repair: credentials naming their one role as an object are taken as a list of one; under reject the registration fails", async () => {
    // "repairing" registered in beforeEach with such credentials
    expect((await gateway.registry.get("repairing"))!.roles).toEqual([expect.objectContaining({ role: "CPO", ...REPAIR })]);
    const repairs: Json[] = (await admin("GET", "/repairs")).body.data;
    expect(repairs).toContainEqual({ partner: "repairing", type: "Credentials", field: "/roles", repair: "single value where a list is required: made a list of one", count: 1 });
    await expect(gateway.credentials.register("strict-credentials")).rejects.toThrow(/Partner answered invalid credentials: \/roles: /);
  });

  const startSessionAt = (partner: string) => admin("POST", `/commands/${partner}/START_SESSION`, startSession);

  it("strictness repair: a CommandResponse with the result in lower case and the timeout as a string is understood", async () => {
    const res = await startSessionAt("repairing");
    expect(res.body.status_code).toBe(1000);
    expect(res.body.data.response).toEqual({ result: "ACCEPTED", timeout: 30 });
    const repairs: Json[] = (await admin("GET", "/repairs")).body.data;
    const fields = repairs.filter((r) => r.partner === "repairing" && r.type === "CommandResponse").map((r) => `${r.field} ${r.repair}`);
    expect(fields.sort()).toEqual(["/result value in the wrong letter case: mapped to ACCEPTED", "/timeout number sent as a string: converted"]);
  });

  it("strictness reject: the same CommandResponse is refused, naming the field", async () => {
    const res = await startSessionAt("rejecting");
    expect(res.body.status_code).toBe(3001);
    expect(res.body.status_message).toContain("/result");
  });

  it("a ChargingProfileResponse is repaired like a CommandResponse", async () => {
    const res = await admin("DELETE", "/chargingprofiles/repairing/SES1");
    expect(res.body.status_code).toBe(1000);
    expect(res.body.data.response).toEqual({ result: "ACCEPTED", timeout: 30 });
    const refused = await admin("DELETE", "/chargingprofiles/rejecting/SES1");
    expect(refused.body.status_code).toBe(3001);
    expect(refused.body.status_message).toContain("/result");
  });

  it("a GET of one object: repaired under repair, taken as it came under log, refused naming the field under reject", async () => {
    const client = new LocationsClient(gateway.partnerClient);
    const repaired = await client.get("repairing", "LOC1");
    expect(repaired!.opening_times).toMatchObject({ twentyfourseven: false, regular_hours: [{ weekday: 1 }, { weekday: 2 }] });
    const asItCame = await client.get("logging", "LOC1");
    expect((asItCame as Json).opening_times.regular_hours[0].weekday).toBe("1");
    await expect(client.get("rejecting", "LOC1")).rejects.toThrow(/Location is invalid: .*\/opening_times\/regular_hours\/0\/weekday/);
  });

  it("send_nulls_for_optional: the command request carries every optional key of StartSession and its Token", async () => {
    await startSessionAt("repairing");
    await startSessionAt("rejecting");
    const sent = repairPartner.received.find((r) => r.method === "POST" && r.path === "/2.2.1/commands/START_SESSION")!.body;
    expect(sent).toMatchObject({ location_id: "LOC1", evse_uid: "EVSE1", connector_id: null, authorization_reference: null });
    expect(sent.token).toMatchObject({ uid: "TOK2", visual_number: null, group_id: null, language: null, default_profile_type: null, energy_contract: null });
    const plain = rejectPartner.received.find((r) => r.method === "POST" && r.path === "/2.2.1/commands/START_SESSION")!.body;
    expect(plain).not.toHaveProperty("connector_id");
  });
});

/* ---------------------------------------------------------------- send_nulls_for_optional */

describe("send_nulls_for_optional", () => {
  it("a pushed Token carries every optional key of the 2.2.1 Token, null when absent; other partners get only what is set", async () => {
    const token = {
      country_code: "DE",
      party_id: "EMS",
      uid: "TOK1",
      type: "RFID",
      contract_id: "DE-EMS-CTOK1",
      visual_number: "DE-EMS-TOK1",
      issuer: "EMS",
      valid: true,
      whitelist: "ALLOWED",
      last_updated: STAMP,
    };
    const event = await admin("POST", "/events", { module: "tokens", owner: { country_code: "DE", party_id: "EMS" }, path: ["TOK1"], kind: "upsert", object: token });
    expect(event.body.status_code).toBe(1000);
    const pushed = async (partner: OffSpecPartner) => {
      for (let waited = 0; waited < 10_000; waited += 50) {
        const found = partner.received.find((r) => r.method === "PUT" && r.path.endsWith("/tokens/DE/EMS/TOK1"));
        if (found) return found.body;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error("the Token was not pushed");
    };
    // Part B Token (2.2.1): the optional fields, from the spec's table
    const optional = ["visual_number", "group_id", "language", "default_profile_type", "energy_contract"];
    const nulls = await pushed(repairPartner);
    for (const key of optional) expect(nulls).toHaveProperty(key);
    expect(nulls).toMatchObject({ visual_number: "DE-EMS-TOK1", group_id: null, language: null, default_profile_type: null, energy_contract: null });
    const plain = await pushed(rejectPartner);
    expect(Object.keys(plain).filter((key) => optional.includes(key))).toEqual(["visual_number"]);
  });
});
