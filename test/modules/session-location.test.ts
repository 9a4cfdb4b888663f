import "reflect-metadata";
import type { CredentialsRole } from "../../core/protocol/types";
import type { Strictness, VersionNumber } from "../../config/types";
import { startHarness, type Harness } from "../support/module-harness";
import { SessionsPlugin } from "../../plugins/sessions/module";
import { LocationsPlugin } from "../../plugins/locations/module";
import { localSessions } from "../../adapters/local/sessions";
import { localLocations } from "../../adapters/local/locations";
import { sessionType } from "../../plugins/sessions/translate";
import { locationType } from "../../plugins/locations/translate";
import { t2Connector } from "../support/ocpi-objects";
import { OWN_LOCATION } from "../../plugins/sessions/model";

/**
 * Issue #25, 2.1.1 Sessions carry a skeleton Location: a 2.1.1 Session
 * embeds a whole 2.1.1 Location with only the EVSE and connector used
 * (OCPI 2.1.1 Sessions module, Session object). Our Sender list takes it
 * from our own Locations, and our Receiver refuses a Location reduced to
 * its ids, naming what it lacks, as it refuses any invalid object.
 */

type Json = Record<string, any>;

const OURS = { country_code: "NL", party_id: "GWY" };
const STAMP = "2024-05-01T09:00:00Z";
const connector = (id: string) => ({ ...t2Connector(id, STAMP), tariff_ids: ["T1"] });
/** Our LOC1: two EVSEs, the first with two connectors; a session uses one connector of one EVSE. */
const LOC1 = {
  ...OURS,
  id: "LOC1",
  publish: true,
  name: "Gent Zuid",
  address: "F.Rooseveltlaan 3A",
  city: "Gent",
  postal_code: "9000",
  country: "BEL",
  coordinates: { latitude: "51.047599", longitude: "3.729944" },
  parking_type: "ON_STREET",
  time_zone: "Europe/Brussels",
  evses: [
    { uid: "3256", evse_id: "BE*BEC*E041503003", status: "CHARGING", connectors: [connector("1"), connector("2")], last_updated: STAMP },
    { uid: "3257", evse_id: "BE*BEC*E041503004", status: "AVAILABLE", connectors: [connector("1")], last_updated: STAMP },
  ],
  last_updated: STAMP,
};

/** A session of ours charged with the partner's token at `place`. */
const session = (id: string, place: { location_id: string; evse_uid: string; connector_id: string }, at: string) => ({
  ...OURS,
  id,
  start_date_time: "2024-05-01T10:00:00Z",
  kwh: 1.5,
  cdr_token: { country_code: "DE", party_id: "EMS", uid: "UID1", type: "RFID", contract_id: "DE-EMS-C1" },
  auth_method: "WHITELIST",
  ...place,
  currency: "EUR",
  status: "ACTIVE",
  last_updated: at,
});

const SESSIONS = [
  session("S1", { location_id: "LOC1", evse_uid: "3256", connector_id: "2" }, "2024-05-01T10:00:01Z"),
  // CiStrings: the session may spell the ids in another case than the Location does
  session("S2", { location_id: "loc1", evse_uid: "3257", connector_id: "1" }, "2024-05-01T10:00:02Z"),
];

/** What a 2.1.1 Session's `location` is for S1: LOC1 in 2.1.1, with only EVSE 3256 and its connector 2. */
const LOC1_FOR_S1 = {
  id: "LOC1",
  type: "ON_STREET",
  name: "Gent Zuid",
  address: "F.Rooseveltlaan 3A",
  city: "Gent",
  postal_code: "9000",
  country: "BEL",
  coordinates: { latitude: "51.047599", longitude: "3.729944" },
  time_zone: "Europe/Brussels",
  evses: [
    {
      uid: "3256",
      evse_id: "BE*BEC*E041503003",
      status: "CHARGING",
      connectors: [{ id: "2", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", voltage: 230, amperage: 32, tariff_id: "T1", last_updated: STAMP }],
      last_updated: STAMP,
    },
  ],
  last_updated: STAMP,
};

const PARTNER_ROLES: CredentialsRole[] = [
  { country_code: "BE", party_id: "BEC", role: "CPO", business_details: { name: "BEBEC" } },
  { country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "DEEMS" } },
];

const harness = (strictness: Strictness = "reject") =>
  startHarness({
    plugins: [SessionsPlugin, LocationsPlugin],
    localModules: [localSessions, localLocations],
    modules: ["sessions", "locations"],
    partnerRoles: PARTNER_ROLES,
    strictness,
    seed: { locations: [LOC1], sessions: SESSIONS },
  });

const list = (h: Harness, v: VersionNumber) =>
  h.http.get(h.path(v, "SENDER", "sessions", "?date_from=2024-01-01T00:00:00Z")).set("Authorization", h.auth);

/** A 2.1.1 Session of BE/BEC whose Location is reduced to its ids, as the gateway used to send them. */
const SKELETON = {
  id: "S9",
  start_datetime: "2024-05-01T10:00:00Z",
  kwh: 1.5,
  auth_id: "DE-EMS-C1",
  auth_method: "WHITELIST",
  location: { id: "LOC1", evses: [{ uid: "LOC1-EVSE1", connectors: [{ id: "1" }] }] },
  currency: "EUR",
  status: "ACTIVE",
  last_updated: "2024-05-01T10:00:00Z",
};
/** PUT of S9 of BE/BEC in 2.1.1: the skeleton, unless another body is given */
const putSkeleton = (h: Harness, body: Json = SKELETON) =>
  h.http.put(h.path("2.1.1", "RECEIVER", "sessions", "/BE/BEC/S9")).set("Authorization", h.auth).send(body);
const getSkeleton = (h: Harness) => h.http.get(h.path("2.1.1", "RECEIVER", "sessions", "/BE/BEC/S9")).set("Authorization", h.auth);

describe("our 2.1.1 Sessions list embeds each session's Location from our Locations", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness()));
  afterAll(async () => h.close());

  it("a 2.1.1 Location with only the session's EVSE and connector, valid as the Locations module validates one", async () => {
    const res = await list(h, "2.1.1");
    expect(res.body.status_code).toBe(1000);
    const [s1, s2] = res.body.data as Json[];
    expect(s1.location).toEqual(LOC1_FOR_S1);
    expect(locationType.schema("2.1.1", "full").safeParse(s1.location).error?.issues ?? []).toEqual([]);
    // and the whole Session is one our own 2.1.1 receiver takes
    expect(sessionType.schema("2.1.1", "full").safeParse(s1).error?.issues ?? []).toEqual([]);
    expect(s2.location.evses).toEqual([expect.objectContaining({ uid: "3257", connectors: [expect.objectContaining({ id: "1" })] })]);
    expect(s2.location.id).toBe("LOC1");
  });

  it("2.2.1 and 2.3.0 lists name the place by its ids only; the internal Location is never shown, nor taken from a partner", async () => {
    for (const v of ["2.2.1", "2.3.0"] as VersionNumber[]) {
      const [s1] = (await list(h, v)).body.data as Json[];
      expect(s1).toMatchObject({ location_id: "LOC1", evse_uid: "3256", connector_id: "2" });
      expect(s1).not.toHaveProperty("location");
      expect(s1).not.toHaveProperty(OWN_LOCATION);
    }
    const theirs = { ...session("P1", { location_id: "LOC1", evse_uid: "3256", connector_id: "1" }, STAMP), country_code: "BE", party_id: "BEC" };
    const path = h.path("2.3.0", "RECEIVER", "sessions", "/BE/BEC/P1");
    expect((await h.http.put(path).set("Authorization", h.auth).send({ ...theirs, [OWN_LOCATION]: LOC1 })).status).toBe(201);
    const held = (await h.http.get(h.path("2.1.1", "RECEIVER", "sessions", "/BE/BEC/P1")).set("Authorization", h.auth)).body.data;
    // a partner's session is not ours: not looked up in our Locations, and not what it tried to slip in
    expect(held.location).toEqual({ id: "LOC1", evses: [{ uid: "3256", connectors: [{ id: "1" }] }] });
  });
});

describe("our 2.1.1 Sessions receiver validates the embedded Location", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness()));
  afterAll(async () => h.close());

  it("strictness reject: a Location reduced to its ids → 2001 naming every missing field, nothing stored; a whole one is taken", async () => {
    const res = await putSkeleton(h);
    expect(res.body.status_code).toBe(2001);
    for (const pointer of [
      "/location/type",
      "/location/address",
      "/location/city",
      "/location/postal_code",
      "/location/country",
      "/location/coordinates",
      "/location/last_updated",
      "/location/evses/0/status",
      "/location/evses/0/last_updated",
      "/location/evses/0/connectors/0/standard",
      "/location/evses/0/connectors/0/voltage",
    ])
      expect(res.body.status_message).toContain(pointer);
    expect((await getSkeleton(h)).status).toBe(404);

    // at least the EVSE used, with its connector
    const { evses: _none, ...noEvse } = LOC1_FOR_S1;
    const without = await putSkeleton(h, { ...SKELETON, location: noEvse });
    expect(without.body.status_code).toBe(2001);
    expect(without.body.status_message).toContain("/location/evses");

    // the whole 2.1.1 Location is taken, and kept for 2.1.1 GETs
    const whole = { ...SKELETON, location: LOC1_FOR_S1 };
    expect((await putSkeleton(h, whole)).status).toBe(201);
    expect((await getSkeleton(h)).body.data).toEqual(whole);
  });
});

describe.each(["log", "repair"] as Strictness[])("the embedded Location under strictness %s, as any object", (strictness) => {
  let h: Harness;
  beforeAll(async () => (h = await harness(strictness)));
  afterAll(async () => h.close());

  it(strictness === "log" ? "is accepted as it came, logged naming the fields" : "cannot be repaired (nothing to fill it from): 2001", async () => {
    const res = await putSkeleton(h);
    const warned = h.logs.some((l) => l.includes("strictness: log") && l.includes("/location/address"));
    if (strictness === "log") {
      expect(res.status).toBe(201);
      expect(warned).toBe(true);
      expect((await getSkeleton(h)).body.data.location).toEqual(SKELETON.location);
    } else {
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain("/location/type");
      expect((await getSkeleton(h)).status).toBe(404);
    }
  });
});
