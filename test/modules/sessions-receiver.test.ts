import "reflect-metadata";
import { down, example, get, harness, patch, put, session } from "./sessions.fixtures";
import type { VersionNumber } from "../../config/types";
import type { Harness } from "../support/module-harness";
import { LOCATION_211, type Session } from "../../plugins/sessions/model";

describe("sessions: receiver PUT/PATCH rules", () => {
  let h: Harness;
  beforeEach(async () => (h = await harness()));
  afterEach(async () => h.close());

  const stored = async (v: VersionNumber = "2.3.0", s = session()) => (await get(h, v, s)).body.data;

  it("PATCH appends charging_periods: two PATCHes, both appended in order", async () => {
    const base = example("2.3.0/session_example_2_short_finished.json");
    await put(h, "2.3.0", base);
    const p1 = { start_date_time: "2015-06-29T23:50:16Z", dimensions: [{ type: "TIME", volume: 0.1 }] };
    const p2 = { start_date_time: "2015-06-29T23:55:00Z", dimensions: [{ type: "PARKING_TIME", volume: 0.2 }] };
    const p3 = { start_date_time: "2015-06-29T23:58:00Z", dimensions: [{ type: "ENERGY", volume: 1 }], tariff_id: "12" };
    expect((await patch(h, "2.3.0", base, { charging_periods: [p1], last_updated: "2015-06-29T23:51:00Z" })).body.status_code).toBe(1000);
    expect((await patch(h, "2.3.0", base, { charging_periods: [p2, p3], last_updated: "2015-06-29T23:59:00Z" })).body.status_code).toBe(1000);
    const after = (await get(h, "2.3.0", base)).body.data;
    expect(after.charging_periods).toEqual([...base.charging_periods, p1, p2, p3]);
    expect(after.last_updated).toBe("2015-06-29T23:59:00Z");
    expect(after.kwh).toBe(base.kwh);
  });

  it("PATCH with an empty or omitted charging_periods changes no period", async () => {
    await put(h, "2.3.0", session());
    const before = await stored();
    await patch(h, "2.3.0", session(), { charging_periods: [], last_updated: "2024-05-01T10:06:00Z" });
    expect(await stored()).toEqual({ ...before, last_updated: "2024-05-01T10:06:00Z" });
    await patch(h, "2.3.0", session(), { status: "COMPLETED", last_updated: "2024-05-01T10:07:00Z" });
    expect(await stored()).toEqual({ ...before, status: "COMPLETED", last_updated: "2024-05-01T10:07:00Z" });
  });

  it("PATCH of total_cost changes only total_cost (and last_updated)", async () => {
    await put(h, "2.3.0", session());
    const before = await stored();
    const total_cost = { before_taxes: 3.5, taxes: [{ name: "VAT", amount: 0.74, percentage: 21 }] };
    expect((await patch(h, "2.3.0", session(), { total_cost, last_updated: "2024-05-01T11:00:00Z" })).status).toBe(200);
    expect(await stored()).toEqual({ ...before, total_cost, last_updated: "2024-05-01T11:00:00Z" });
  });

  it("PUT replaces everything, charging_periods included", async () => {
    await put(h, "2.3.0", session());
    await patch(h, "2.3.0", session(), {
      charging_periods: [{ start_date_time: "2024-05-01T10:03:00Z", dimensions: [{ type: "TIME", volume: 0.05 }] }],
      meter_id: "M-1",
      last_updated: "2024-05-01T10:04:00Z",
    });
    const { charging_periods: _p, total_cost: _c, ...withoutOptionals } = session({ last_updated: "2024-05-01T12:00:00Z" });
    expect((await put(h, "2.3.0", withoutOptionals)).status).toBe(200);
    const after = await stored();
    expect(after).toEqual(withoutOptionals);
    expect(after.charging_periods).toBeUndefined();
    expect(after.meter_id).toBeUndefined();
  });

  it("PATCH without last_updated → 2001 naming /last_updated; nothing changed", async () => {
    await put(h, "2.3.0", session());
    const before = await stored();
    const res = await patch(h, "2.3.0", session(), { kwh: 99 });
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/last_updated");
    expect(await stored()).toEqual(before);
  });

  it("PATCH of an unknown session → HTTP 404", async () => {
    const res = await patch(h, "2.3.0", session({ id: "NOPE" }), { kwh: 2, last_updated: "2024-05-01T10:06:00Z" });
    expect(res.status).toBe(404);
    expect(res.body.status_code).toBe(2001);
  });

  it("GET of an unknown session → HTTP 404", async () => {
    expect((await get(h, "2.3.0", session({ id: "NOPE" }))).status).toBe(404);
  });

  it("PATCH with a malformed value → 2001 naming it; nothing changed", async () => {
    await put(h, "2.3.0", session());
    const before = await stored();
    const res = await patch(h, "2.3.0", session(), {
      kwh: "lots",
      charging_periods: [{ start_date_time: "2024-05-01T10:03:00Z", dimensions: [] }],
      last_updated: "2024-05-01T10:06:00Z",
    });
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/kwh");
    expect(res.body.status_message).toContain("/charging_periods/0/dimensions");
    expect(await stored()).toEqual(before);
  });

  it("body id differing from the path → 2001, nothing stored", async () => {
    const res = await put(h, "2.3.0", session({ id: "OTHER" }), session());
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/id");
    expect((await get(h, "2.3.0", session())).status).toBe(404);
    expect((await get(h, "2.3.0", session({ id: "OTHER" }))).status).toBe(404);
  });

  it("2.3.0 extensibility: unknown properties are stored and returned", async () => {
    const extended = session({
      green_score: 7,
      cdr_token: { ...session().cdr_token, wallet: "w-1" },
      charging_periods: [{ start_date_time: "2024-05-01T10:00:00Z", dimensions: [{ type: "ENERGY", volume: 1, phase: 2 }], note: "x" }],
    });
    expect((await put(h, "2.3.0", extended)).status).toBe(201);
    expect(await stored()).toEqual(extended);
    // the gateway's internal 2.1.1 location slot is never taken from a partner
    await put(h, "2.3.0", { ...extended, [LOCATION_211]: { id: "FAKE" } });
    expect((await get(h, "2.1.1", extended)).body.data.location).toEqual({ id: "LOC1", evses: [{ uid: "EVSE1", connectors: [{ id: "1" }] }] });
  });
});

describe("sessions: ownership and malformed bodies", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness()));
  afterAll(async () => h.close());

  it("writing under a party that is not the partner's → 2001 and nothing stored", async () => {
    for (const owner of [
      { country_code: "FR", party_id: "XYZ" },
      { country_code: "NL", party_id: "GWY" }, // our own party
    ]) {
      const s = session({ ...owner, id: "OWN1" });
      const res = await put(h, "2.3.0", s);
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain(`${owner.country_code}/${owner.party_id}`);
      expect(await h.gateway.store.get(`local:sessions:${owner.country_code}${owner.party_id}`, "OWN1")).toBeUndefined();
    }
    // the body's owner must equal the path's
    const res = await put(h, "2.3.0", session({ country_code: "BE", party_id: "BEC", id: "OWN2" }), session({ id: "OWN2" }));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/country_code");
    expect((await get(h, "2.3.0", session({ id: "OWN2" }))).status).toBe(404);
    expect((await get(h, "2.3.0", session({ country_code: "BE", party_id: "BEC", id: "OWN2" }))).status).toBe(404);
  });

  const MALFORMED: { what: string; change: (s: Record<string, any>) => void; pointer: string }[] = [
    { what: "wrong type", change: (s) => (s.kwh = "12.5"), pointer: "/kwh" },
    { what: "too-long string", change: (s) => (s.meter_id = "m".repeat(256)), pointer: "/meter_id" },
    { what: "too-long nested string", change: (s) => (s.cdr_token.contract_id = "c".repeat(37)), pointer: "/cdr_token/contract_id" },
    { what: "missing required field", change: (s) => delete s.currency, pointer: "/currency" },
    { what: "missing nested required field", change: (s) => delete s.cdr_token.uid, pointer: "/cdr_token/uid" },
    { what: "bad enum", change: (s) => (s.status = "RUNNING"), pointer: "/status" },
    { what: "bad closed enum in 2.3.0", change: (s) => (s.auth_method = "PLUG"), pointer: "/auth_method" },
    { what: "bad date", change: (s) => (s.start_date_time = "2024-02-30T10:00:00Z"), pointer: "/start_date_time" },
    { what: "date with an offset", change: (s) => (s.last_updated = "2024-05-01T10:05:00+02:00"), pointer: "/last_updated" },
    { what: "empty dimensions", change: (s) => (s.charging_periods[0].dimensions = []), pointer: "/charging_periods/0/dimensions" },
    { what: "bad dimension type", change: (s) => (s.charging_periods[0].dimensions[0].type = "JOULES"), pointer: "/charging_periods/0/dimensions/0/type" },
    { what: "bad price", change: (s) => (s.total_cost = { excl_vat: 1 }), pointer: "/total_cost/before_taxes" },
    { what: "bad currency", change: (s) => (s.currency = "euro"), pointer: "/currency" },
    { what: "bad party_id", change: (s) => (s.cdr_token.party_id = "TOOLONG"), pointer: "/cdr_token/party_id" },
  ];

  it.each(MALFORMED)("$what → 2001 naming $pointer, GET shows nothing changed", async ({ change, pointer }) => {
    const good = session({ id: "MAL" });
    await put(h, "2.3.0", good);
    const before = (await get(h, "2.3.0", good)).body.data;
    const bad = structuredClone(good);
    change(bad);
    bad.kwh = typeof bad.kwh === "number" ? 77 : bad.kwh; // a valid change riding along must not be stored either
    const res = await put(h, "2.3.0", bad, good);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain(pointer);
    expect((await get(h, "2.3.0", good)).body.data).toEqual(before);
  });

  it("several violations are all named", async () => {
    const bad = session({ id: "MAL2", kwh: "x", status: "NOPE", currency: undefined });
    const res = await put(h, "2.3.0", bad);
    expect(res.body.status_code).toBe(2001);
    for (const p of ["/kwh", "/status", "/currency"]) expect(res.body.status_message).toContain(p);
    expect((await get(h, "2.3.0", bad)).status).toBe(404);
  });

  it("2.2.1 enums are closed: a 2.3.0-only token type is rejected", async () => {
    const s = down(session({ id: "MAL3", cdr_token: { ...session().cdr_token, type: "EMAID" } }) as Session, "2.2.1") as any;
    s.cdr_token.type = "EMAID";
    const res = await put(h, "2.2.1", s);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/cdr_token/type");
  });
});

describe("sessions: strictness log", () => {
  let h: Harness;
  beforeAll(async () => (h = await harness({ strictness: "log", seed: { sessions: [session({ country_code: "NL", party_id: "GWY", id: "CP1" })] } })));
  afterAll(async () => h.close());

  it("a slightly-off session is accepted and a warning is logged", async () => {
    const off = session({ id: "LOG1", meter_id: "m".repeat(300) });
    const res = await put(h, "2.3.0", off);
    expect(res.status).toBe(201);
    expect(res.body.status_code).toBe(1000);
    expect((await get(h, "2.3.0", off)).body.data.meter_id).toHaveLength(300);
    expect(h.logs.some((l) => l.includes("strictness: log") && l.includes("/meter_id"))).toBe(true);
  });

  it("an unknown profile_type reaches the adapter: PROFILE_TYPE_NOT_SUPPORTED", async () => {
    const res = await h.http
      .put(h.path("2.3.0", "SENDER", "sessions", "/CP1/charging_preferences"))
      .set("Authorization", h.auth)
      .send({ profile_type: "TURBO" });
    expect(res.body.data).toBe("PROFILE_TYPE_NOT_SUPPORTED");
  });
});
