import "reflect-metadata";
import { down, harness, put, session } from "./sessions.fixtures";
import type { VersionNumber } from "../../config/types";
import type { Harness } from "../support/module-harness";
import type { Session } from "../../plugins/sessions/model";

describe("sessions: sender list and pagination", () => {
  let h: Harness;
  const T = (i: number) => `2024-01-01T00:00:0${i}Z`;
  const ours = Array.from({ length: 7 }, (_, i) =>
    session({ country_code: "NL", party_id: "GWY", id: `G${i}`, last_updated: T(i), status: i === 6 ? "COMPLETED" : "ACTIVE" }),
  );
  beforeAll(async () => (h = await harness({ maxPageLimit: 5, seed: { sessions: ours } })));
  afterAll(async () => h.close());

  const list = (v: VersionNumber, query: string) => h.http.get(h.path(v, "SENDER", "sessions", query)).set("Authorization", h.auth);
  const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((s) => s.id);
  const relative = (link: string) => /<([^>]+)>/.exec(link)![1].replace("http://127.0.0.1:9", "");

  it("date_from missing → 2001", async () => {
    for (const v of ["2.3.0", "2.2.1", "2.1.1"] as VersionNumber[]) {
      const res = await list(v, "?limit=2");
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain("date_from");
    }
  });

  it("limit, offset and Link following keep the filters and cover every object once", async () => {
    const first = await list("2.3.0", "?date_from=2024-01-01T00:00:00Z&limit=3");
    expect(first.body.status_code).toBe(1000);
    expect(ids(first)).toEqual(["G0", "G1", "G2"]);
    expect(first.headers["x-total-count"]).toBe("7");
    expect(first.headers["x-limit"]).toBe("5");
    expect(first.headers.link).toContain("date_from=2024-01-01T00%3A00%3A00Z");
    expect(first.headers.link).toContain("offset=3");
    const second = await h.http.get(relative(first.headers.link)).set("Authorization", h.auth);
    expect(ids(second)).toEqual(["G3", "G4", "G5"]);
    const third = await h.http.get(relative(second.headers.link)).set("Authorization", h.auth);
    expect(ids(third)).toEqual(["G6"]);
    expect(third.headers.link).toBeUndefined();
    expect(ids(await list("2.3.0", "?date_from=2024-01-01T00:00:00Z&offset=5&limit=1"))).toEqual(["G5"]);
  });

  it("a limit above the server cap is capped, and X-Limit says so", async () => {
    const res = await list("2.3.0", "?date_from=2024-01-01T00:00:00Z&limit=50");
    expect(res.body.data).toHaveLength(5);
    expect(res.headers["x-limit"]).toBe("5");
    expect(res.headers.link).toContain("limit=5");
    expect(res.headers.link).toContain("offset=5");
  });

  it("date_from is inclusive and date_to exclusive at the exact boundaries", async () => {
    const res = await list("2.3.0", `?date_from=${T(2)}&date_to=${T(5)}`);
    expect(ids(res)).toEqual(["G2", "G3", "G4"]);
    expect(res.headers["x-total-count"]).toBe("3");
    expect(ids(await list("2.3.0", `?date_from=${T(6)}`))).toEqual(["G6"]);
    expect(ids(await list("2.3.0", `?date_from=2024-01-01T00:00:06.001Z`))).toEqual([]);
  });

  it("lists only our party's sessions, never those partners pushed", async () => {
    await put(h, "2.3.0", session({ id: "PUSHED", last_updated: T(3) }));
    const res = await list("2.3.0", "?date_from=2024-01-01T00:00:00Z&limit=5");
    expect(res.headers["x-total-count"]).toBe("7");
  });

  it("2.2.1 list items are translated (Price as excl_vat/incl_vat)", async () => {
    const res = await list("2.2.1", `?date_from=${T(0)}&limit=1`);
    expect(res.body.data[0]).toEqual(down(ours[0] as Session, "2.2.1"));
    expect(res.body.data[0].total_cost).toEqual({ excl_vat: 1, incl_vat: 1.21 });
  });

  it("2.1.1 list shape: 2.1.1 field names, no owner, number cost; no Locations served, so only the Location's ids (logged)", async () => {
    const res = await list("2.1.1", `?date_from=${T(0)}&limit=1`);
    const [item] = res.body.data;
    expect(item).toEqual({
      id: "G0",
      start_datetime: "2024-05-01T10:00:00Z",
      kwh: 1.5,
      auth_id: "DE-EMS-C1",
      auth_method: "WHITELIST",
      location: { id: "LOC1", evses: [{ uid: "EVSE1", connectors: [{ id: "1" }] }] },
      currency: "EUR",
      charging_periods: [{ start_date_time: "2024-05-01T10:00:00Z", dimensions: [{ type: "ENERGY", volume: 1.5 }] }],
      total_cost: 1,
      status: "ACTIVE",
      last_updated: T(0),
    });
    expect(res.headers["x-total-count"]).toBe("7");
    const dropped = h.logs.filter((l) => l.includes("field dropped by version translation")).map((l) => JSON.parse(l).field);
    expect(dropped).toEqual(expect.arrayContaining(["location", "cdr_token", "total_cost.taxes"]));
    expect(h.logs.some((l) => l.includes("our Locations have no Location") && l.includes("NL/GWY/LOC1/EVSE1/1"))).toBe(true);
  });
});

describe("sessions: charging preferences (sender, 2.2+)", () => {
  let h: Harness;
  const ours = [
    session({ country_code: "NL", party_id: "GWY", id: "CP1", status: "ACTIVE" }),
    session({ country_code: "NL", party_id: "GWY", id: "CP2", status: "COMPLETED" }),
  ];
  beforeAll(async () => (h = await harness({ seed: { sessions: ours } })));
  afterAll(async () => h.close());

  const prefs = (v: VersionNumber, id: string, body: unknown) =>
    h.http.put(h.path(v, "SENDER", "sessions", `/${id}/charging_preferences`)).set("Authorization", h.auth).send(body as object);

  it.each([
    ["REGULAR, nothing else", "ACCEPTED", "CP1", { profile_type: "REGULAR" }],
    ["FAST with energy need", "ACCEPTED", "CP1", { profile_type: "FAST", energy_need: 20, discharge_allowed: false }],
    ["CHEAP without departure_time", "DEPARTURE_REQUIRED", "CP1", { profile_type: "CHEAP", energy_need: 20 }],
    ["GREEN without energy_need", "ENERGY_NEED_REQUIRED", "CP1", { profile_type: "GREEN", departure_time: "2024-05-01T18:00:00Z" }],
    ["CHEAP with both", "ACCEPTED", "CP1", { profile_type: "CHEAP", departure_time: "2024-05-01T18:00:00Z", energy_need: 20 }],
    ["a completed session", "NOT_POSSIBLE", "CP2", { profile_type: "REGULAR" }],
  ])("%s → %s", async (_what, expected, id, body) => {
    for (const v of ["2.3.0", "2.2.1"] as VersionNumber[]) {
      const res = await prefs(v, id, body);
      expect(res.status).toBe(200);
      expect(res.body.status_code).toBe(1000);
      expect(res.body.data).toBe(expected);
    }
  });

  it("an unknown session, or one that is not our party's, → HTTP 404", async () => {
    expect((await prefs("2.3.0", "NOPE", { profile_type: "REGULAR" })).status).toBe(404);
    await put(h, "2.3.0", session({ id: "THEIRS" }));
    expect((await prefs("2.3.0", "THEIRS", { profile_type: "REGULAR" })).status).toBe(404);
  });

  it("malformed preferences → 2001 naming the field", async () => {
    const res = await prefs("2.3.0", "CP1", { profile_type: "TURBO", departure_time: "tomorrow" });
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/profile_type");
    expect(res.body.status_message).toContain("/departure_time");
    expect((await prefs("2.2.1", "CP1", { energy_need: 3 })).body.status_message).toContain("/profile_type");
  });

  it("does not exist in 2.1.1 → HTTP 404", async () => {
    expect((await prefs("2.1.1", "CP1", { profile_type: "REGULAR" })).status).toBe(404);
  });
});
