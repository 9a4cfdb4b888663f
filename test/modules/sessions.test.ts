import "reflect-metadata";
import path from "node:path";
import { readFileSync } from "node:fs";
import type { CredentialsRole } from "../../core/protocol/types";
import type { VersionNumber } from "../../config/types";
import { silentTranslation, type TranslationContext } from "../../core/model/object-type";
import { startHarness, type Harness, type HarnessOptions } from "../support/module-harness";
import { EXAMPLES } from "../support/ocpi-examples";
import { SessionsPlugin } from "../../plugins/sessions/module";
import { localSessions } from "../../adapters/local/sessions";
import { sessionType, SESSIONS_TRANSLATION_LOSSES } from "../../plugins/sessions/translate";
import { LOCATION_211, OWN_LOCATION, type Session } from "../../plugins/sessions/model";

/** Example payloads, read where they stand at test time. */
const example = (file: string): Record<string, any> => JSON.parse(readFileSync(path.join(EXAMPLES, file), "utf8"));

const tx = silentTranslation();
const up = (wire: unknown, version: VersionNumber) => sessionType.up(wire, version, tx);
const down = (canonical: Session, version: VersionNumber) => sessionType.down(canonical, version, tx);

const cpo = (country_code: string, party_id: string): CredentialsRole => ({
  country_code,
  party_id,
  role: "CPO",
  business_details: { name: `${country_code}${party_id}` },
});
/** The partner speaks for the CPOs owning the example sessions, and for an eMSP. */
const PARTNER_ROLES: CredentialsRole[] = [
  cpo("NL", "STK"),
  cpo("BE", "BEC"),
  { country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "DEEMS" } },
];

const harness = (options: Partial<HarnessOptions> = {}) =>
  startHarness({
    plugins: [SessionsPlugin],
    localModules: [localSessions],
    modules: ["sessions"],
    partnerRoles: PARTNER_ROLES,
    ...options,
  });

/** A valid 2.3.0 session of `owner`, for crafted tests. */
const session = (overrides: Record<string, unknown> = {}): Record<string, any> => ({
  country_code: "NL",
  party_id: "STK",
  id: "S1",
  start_date_time: "2024-05-01T10:00:00Z",
  kwh: 1.5,
  cdr_token: { country_code: "DE", party_id: "EMS", uid: "UID1", type: "RFID", contract_id: "DE-EMS-C1" },
  auth_method: "WHITELIST",
  location_id: "LOC1",
  evse_uid: "EVSE1",
  connector_id: "1",
  currency: "EUR",
  charging_periods: [{ start_date_time: "2024-05-01T10:00:00Z", dimensions: [{ type: "ENERGY", volume: 1.5 }] }],
  total_cost: { before_taxes: 1, taxes: [{ name: "VAT", amount: 0.21 }] },
  status: "ACTIVE",
  last_updated: "2024-05-01T10:05:00Z",
  ...overrides,
});

const receiverPath = (h: Harness, v: VersionNumber, s: { country_code: string; party_id: string; id: string }) =>
  h.path(v, "RECEIVER", "sessions", `/${s.country_code}/${s.party_id}/${s.id}`);
const put = (h: Harness, v: VersionNumber, s: any, at = s) => h.http.put(receiverPath(h, v, at)).set("Authorization", h.auth).send(s);
const patch = (h: Harness, v: VersionNumber, at: any, fragment: unknown) =>
  h.http.patch(receiverPath(h, v, at)).set("Authorization", h.auth).send(fragment as object);
const get = (h: Harness, v: VersionNumber, at: any) => h.http.get(receiverPath(h, v, at)).set("Authorization", h.auth);

/**
 * Defective example files, with the reason; the test below asserts each is
 * rejected and uses the errata copy instead. NOTICE.md does not list these
 * two: the 2.2.1 tag's session examples omit cdr_token.country_code and
 * party_id, both required by the 2.2.1 CdrToken (OCPI 2.2.1 CDRs module "both added
 * in 2.2.1"); branch release-2.2.1-bugfixes carries the corrected files.
 */
const DEFECTIVE = [
  {
    file: "2.2.1/session_example_1_simple_start.json",
    reason: "cdr_token lacks country_code and party_id (required in 2.2.1)",
    fixed: "2.2.1-d2_release-2.2.1-bugfixes/session_example_1_simple_start.json",
  },
  {
    file: "2.2.1/session_example_2_short_finished.json",
    reason: "cdr_token lacks country_code and party_id (required in 2.2.1)",
    fixed: "2.2.1-d2_release-2.2.1-bugfixes/session_example_2_short_finished.json",
  },
];

const FULL_EXAMPLES: { version: VersionNumber; file: string }[] = [
  { version: "2.3.0", file: "2.3.0/session_example_1_simple_start.json" },
  { version: "2.3.0", file: "2.3.0/session_example_2_short_finished.json" },
  { version: "2.2.1", file: DEFECTIVE[0].fixed },
  { version: "2.2.1", file: DEFECTIVE[1].fixed },
];
const OTHER: Record<string, VersionNumber> = { "2.3.0": "2.2.1", "2.2.1": "2.3.0" };

describe("sessions: published examples", () => {
  let h: Harness;
  beforeEach(async () => (h = await harness()));
  afterEach(async () => h.close());

  it("lists the defective example files it does not use as positive vectors", () => {
    expect(DEFECTIVE.map((d) => [d.file, d.reason])).toEqual([
      ["2.2.1/session_example_1_simple_start.json", "cdr_token lacks country_code and party_id (required in 2.2.1)"],
      ["2.2.1/session_example_2_short_finished.json", "cdr_token lacks country_code and party_id (required in 2.2.1)"],
    ]);
    for (const d of DEFECTIVE) expect(example(d.file).cdr_token.country_code).toBeUndefined();
  });

  it.each(DEFECTIVE)("rejects the defective $file with 2001 naming the missing fields, storing nothing", async ({ file }) => {
    const body = example(file);
    const res = await put(h, "2.2.1", body);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/cdr_token/country_code");
    expect(res.body.status_message).toContain("/cdr_token/party_id");
    expect((await get(h, "2.2.1", body)).status).toBe(404);
  });

  it.each(FULL_EXAMPLES)("$file: PUT $version, GET equal in its version and translated in the other", async ({ version, file }) => {
    const body = example(file);
    const created = await put(h, version, body);
    expect(created.status).toBe(201);
    expect(created.body.status_code).toBe(1000);

    const same = await get(h, version, body);
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(body);

    const other = OTHER[version];
    const canonical = up(body, version);
    const translated = await get(h, other, body);
    expect(translated.body.data).toEqual(down(canonical, other));
    // and 2.1.1 sees the translator's output too
    expect((await get(h, "2.1.1", body)).body.data).toEqual(down(canonical, "2.1.1"));

    // a second PUT replaces: 200
    expect((await put(h, version, body)).status).toBe(200);
  });

  it("translates prices between 2.3.0 and 2.2.1 as the spec's paired examples show", async () => {
    const ex230 = example("2.3.0/session_example_2_short_finished.json");
    await put(h, "2.3.0", ex230);
    const as221 = (await get(h, "2.2.1", ex230)).body.data;
    expect(as221.total_cost).toEqual(example(DEFECTIVE[1].fixed).total_cost); // { excl_vat: 8.5, incl_vat: 9.35 }
    expect(as221.charging_periods).toEqual(ex230.charging_periods);
    const as211 = (await get(h, "2.1.1", ex230)).body.data;
    expect(as211.total_cost).toBe(8.5);
  });

  it.each(["2.3.0", "2.2.1"] as VersionNumber[])("%s: session_patch_example_* applied after a PUT of session_example_1", async (version) => {
    const base = example(version === "2.3.0" ? "2.3.0/session_example_1_simple_start.json" : DEFECTIVE[0].fixed);
    const totalCost = example(`${version}/session_patch_example_total_cost.json`);
    const period = example(`${version}/session_patch_example_charging_period.json`);
    expect((await put(h, version, base)).status).toBe(201);

    const r1 = await patch(h, version, base, totalCost);
    expect(r1.status).toBe(200);
    expect(r1.body.status_code).toBe(1000);
    const afterCost = { ...base, total_cost: totalCost.total_cost, last_updated: totalCost.last_updated };
    expect((await get(h, version, base)).body.data).toEqual(afterCost);

    expect((await patch(h, version, base, period)).body.status_code).toBe(1000);
    const afterPeriod = { ...afterCost, ...period, charging_periods: period.charging_periods };
    expect((await get(h, version, base)).body.data).toEqual(afterPeriod);
    // the other version sees the same object through the translators
    expect((await get(h, OTHER[version], base)).body.data).toEqual(down(up(afterPeriod, version), OTHER[version]));
  });
});

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

describe("sessions: 2.1.1", () => {
  let h: Harness;
  beforeEach(async () => (h = await harness()));
  afterEach(async () => h.close());

  const START = "2.1.1-d2_inline-extracted/mod_sessions_02_simple_session_example_of_a_just_starting_session.json";
  const FINISHED = "2.1.1-d2_inline-extracted/mod_sessions_03_simple_session_example_of_a_short_finished_session.json";
  const COST = "2.1.1-d2_inline-extracted/mod_sessions_01_example_update_the_total_cost.json";
  const at = { country_code: "BE", party_id: "BEC", id: "101" };
  /**
   * Both 2.1.1 session examples are defective (not listed in NOTICE.md): their Location's country is "BE", where a
   * 2.1.1 Location's country is ISO 3166 alpha-3 (OCPI 2.1.1 Locations module, Location object); corrected here.
   */
  const example211 = (file: string): Record<string, any> => {
    const wire = example(file);
    return { ...wire, location: { ...wire.location, country: "BEL" } };
  };

  it.each([START, FINISHED])("rejects the defective %s with 2001 naming /location/country, storing nothing", async (file) => {
    const res = await put(h, "2.1.1", example(file), at);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/location/country");
    expect((await get(h, "2.1.1", at)).status).toBe(404);
  });

  it("PUT and GET round trip through the 2.1.1 receiver, full Location kept", async () => {
    const start = example211(START);
    expect((await put(h, "2.1.1", start, at)).status).toBe(201);
    expect((await get(h, "2.1.1", at)).body.data).toEqual(start);

    const finished = example211(FINISHED);
    expect((await put(h, "2.1.1", finished, at)).status).toBe(200);
    expect((await get(h, "2.1.1", at)).body.data).toEqual(finished);
  });

  it("a 2.1.1 session seen in 2.3.0 and 2.2.1: owner from the path, ids from the Location, cdr_token from auth_id", async () => {
    await put(h, "2.1.1", example211(START), at);
    const canonical = (await get(h, "2.3.0", at)).body.data;
    expect(canonical).toMatchObject({
      country_code: "BE",
      party_id: "BEC",
      id: "101",
      start_date_time: "2015-06-29T22:39:09Z",
      cdr_token: { country_code: "BE", party_id: "BEC", uid: "DE8ACC12E46L89", type: "OTHER", contract_id: "DE8ACC12E46L89" },
      location_id: "LOC1",
      evse_uid: "3256",
      connector_id: "1",
      total_cost: { before_taxes: 2.5 },
      status: "PENDING",
    });
    expect(canonical).not.toHaveProperty(LOCATION_211);
    expect(canonical).not.toHaveProperty("location");
    expect(canonical).not.toHaveProperty("start_datetime");
    expect((await get(h, "2.2.1", at)).body.data.total_cost).toEqual({ excl_vat: 2.5 });
  });

  it("PATCH with the 2.1.1 example (no last_updated in 2.1.1) changes total_cost only", async () => {
    const start = example211(START);
    await put(h, "2.1.1", start, at);
    const res = await patch(h, "2.1.1", at, example(COST));
    expect(res.body.status_code).toBe(1000);
    expect((await get(h, "2.1.1", at)).body.data).toEqual({ ...start, total_cost: 0.6 });
  });

  it("2.1.1 PATCH appends charging periods too", async () => {
    const finished = example211(FINISHED);
    await put(h, "2.1.1", finished, at);
    const more = { start_date_time: "2015-06-29T23:50:16Z", dimensions: [{ type: "TIME", volume: 0.01 }] };
    await patch(h, "2.1.1", at, { charging_periods: [more], last_updated: "2015-06-29T23:51:00Z" });
    const after = (await get(h, "2.1.1", at)).body.data;
    expect(after.charging_periods).toEqual([...finished.charging_periods, more]);
  });

  it("2.1.1 rejects what 2.1.1 lacks: RESERVATION status, COMMAND auth, a cost object", async () => {
    const start = example211(START);
    for (const [field, value] of [
      ["status", "RESERVATION"],
      ["auth_method", "COMMAND"],
      ["total_cost", { excl_vat: 1 }],
    ] as const) {
      const res = await put(h, "2.1.1", { ...start, [field]: value }, at);
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain(`/${field}`);
    }
    expect((await get(h, "2.1.1", at)).status).toBe(404);
  });

  it("a 2.3.0 session with 2.1.1-less values goes down mapped (RESERVATION→PENDING, COMMAND→AUTH_REQUEST)", async () => {
    const s = session({ status: "RESERVATION", auth_method: "COMMAND", authorization_reference: "AR1", evse_uid: "#NA", connector_id: "#NA" });
    await put(h, "2.3.0", s);
    const old = (await get(h, "2.1.1", s)).body.data;
    expect(old.status).toBe("PENDING");
    expect(old.auth_method).toBe("AUTH_REQUEST");
    expect(old).not.toHaveProperty("authorization_reference");
    expect(old.charging_periods[0]).not.toHaveProperty("tariff_id");
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

describe("sessions: translation losses are declared", () => {
  it("every field a translator drops is listed in SESSIONS_TRANSLATION_LOSSES", () => {
    const dropped = new Set<string>();
    const recording: TranslationContext = {
      params: {},
      owner: { country_code: "BE", party_id: "BEC" },
      dropped: (field) => void dropped.add(field),
    };
    const lossy = session({
      status: "RESERVATION",
      auth_method: "COMMAND",
      authorization_reference: "AR",
      cdr_token: { ...session().cdr_token, type: "EMAID" },
      total_cost: { before_taxes: 1, taxes: [{ name: "VAT", amount: 0.1 }, { name: "CITY", amount: 0.05 }] },
      charging_periods: [
        { start_date_time: "2024-05-01T10:00:00Z", dimensions: [{ type: "RESERVATION_EXPIRES", volume: 1 }], tariff_id: "T" },
        { start_date_time: "2024-05-01T10:01:00Z", dimensions: [{ type: "POWER", volume: 3 }, { type: "ENERGY", volume: 1 }] },
      ],
    }) as Session;
    sessionType.down(lossy, "2.2.1", recording);
    sessionType.down(lossy, "2.1.1", recording);
    // our own Location embedded in 2.1.1: what a 2.1.1 Location cannot carry is reported below location.
    const ours = { id: "LOC1", state: "Utrecht", evses: [{ uid: "EVSE1", connectors: [{ id: "1", max_electric_power: 22000 }] }] };
    sessionType.down({ ...lossy, [OWN_LOCATION]: ours } as Session, "2.1.1", recording);
    const wire211 = example("2.1.1-d2_inline-extracted/mod_sessions_03_simple_session_example_of_a_short_finished_session.json");
    wire211.location.evses.push({ uid: "X", connectors: [{ id: "2" }] });
    wire211.charging_periods.push({ start_date_time: "2015-06-29T23:10:00Z", dimensions: [{ type: "FLAT", volume: 1 }] });
    sessionType.up(wire211, "2.1.1", recording);

    const declared = new Set(SESSIONS_TRANSLATION_LOSSES.map((l) => l.field));
    // "location.*": every field the embedded Location loses, as the Locations module declares them
    const isDeclared = (f: string) => declared.has(f) || (f.startsWith("location.") && declared.has("location.*"));
    expect([...dropped].filter((f) => !isDeclared(f))).toEqual([]);
    expect([...dropped].filter((f) => f.startsWith("location.") && f !== "location.evses")).toEqual([
      "location.state",
      "location.evses[].connectors[].max_electric_power",
    ]);
    // and the exercise above reached every declared loss
    expect([...declared].filter((f) => !dropped.has(f) && !(f === "location.*" && [...dropped].some((d) => d.startsWith("location."))))).toEqual([]);
  });
});
