import type { Pool, RowDataPacket } from "mysql2/promise";
import type { EmspPartner } from "../support/emsp-partner";
import type { FakeSteve } from "../support/fake-steve";
import { ocpiRequest } from "../support/gateway-process";
import { removeTempDirs } from "../support/gateway-config";
import type { MariaDb, TestDatabase } from "../support/mariadb";
import { ALPHA, BETA } from "../support/steve-seed";
import * as harness from "./steve-cpo-harness";
import { eventually, expectedLocations, REST_PASSWORD, REST_USER, startSteveCpo, TARIFF, type Json, type SteveCpo } from "./steve-cpo-harness";

/**
 * Issue #10 end to end (steve-cpo-harness.ts): a CPO gateway whose modules
 * run on the `steve` adapter over a real MariaDB (SteVe 3.14 schema) and the
 * fake SteVe REST API, and an eMSP gateway (`local` adapter) registered with
 * it through the real handshake over loopback. The eMSP pulls Locations,
 * pushes a token, starts and stops a session by command and receives the
 * Session PUT, its PATCHes and one priced CDR; a status row becomes an EVSE
 * PATCH; MariaDB is stopped for ~10 s in the middle: 503/3000 meanwhile,
 * nothing missed after. steve-cpo-older-schema.test.ts runs the same path on
 * SteVe's older schema generation.
 *
 * The path is one scenario told in steps, one test each; every test gets a
 * world of its own (beforeEach) and runs the steps before its own on it
 * (`runThrough`), so it passes alone and in any order.
 */

const EMSP_TAG = "EMSTOKEN1";
const EXPECTED = expectedLocations("3.14");
const EXPECTED_ALPHA = EXPECTED.find((l) => l.id === ALPHA.id);

let env: SteveCpo;
/** this test's world, until afterEach closed it */
let opened: SteveCpo | undefined;
let maria: MariaDb;
let access: TestDatabase;
let writer: Pool;
let fake: FakeSteve;
let emsp: EmspPartner;
let cpoUrl: string;
let logLines: string[];

beforeEach(async () => {
  opened = env = await startSteveCpo("3.14");
  ({ maria, access, writer, fake, emsp, cpoUrl, logLines } = env);
  // What SteVe holds when the CPO's poller first polls counts as published: a test's changes come after that poll.
  await eventually(() => logLines.some((l) => l.includes("steve: first poll")));
}, 60_000);

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});
afterAll(() => removeTempDirs());

const get = (path: string) => harness.senderGet(env, path);
const command = (type: string, body: Json) => harness.command(env, type, body);
const stored = <T>(collection: string, key: string) => harness.stored<T>(env, collection, key);
const requests = (method: string, pathPart: string) => harness.requests(env, method, pathPart);

test("the eMSP pulls every mapped Location field, the YAML's tariffs, and sees none of the sessions of other tokens", () => pulled());

async function pulled() {
  const locations = await get("locations");
  expect(locations.status).toBe(200);
  expect((locations.body as Json).data).toEqual(EXPECTED);
  expect(((await get(`locations/${ALPHA.id}`)).body as Json).data).toEqual(EXPECTED_ALPHA);

  const tariffs = (await get("tariffs")).body as Json;
  expect(tariffs.data).toEqual([{ country_code: "DE", party_id: "ABC", ...TARIFF }]);

  // The seeded transactions are local cards' (our own party's): no eMSP's.
  for (const module of ["sessions?date_from=2020-01-01T00:00:00Z", "cdrs"]) {
    const page = await get(module);
    expect([page.status, (page.body as Json).data, page.headers["x-total-count"]]).toEqual([200, [], "0"]);
  }

  // The eMSP keeps them too (its sync pull), so EVSE PATCHes have something to apply to.
  const sync = await emsp.admin("POST", "/sync/cpo/locations");
  expect(sync.status).toBe(200);
  expect(await stored<Json>("local:locations:DEABC", ALPHA.id)).toMatchObject({ id: ALPHA.id, evses: [{ status: "CHARGING" }, { status: "AVAILABLE" }] });
}

test("the eMSP's token becomes an ocpp_tag and is read back whole", () => tokenPushed());

async function tokenPushed() {
  const put = await emsp.putToken(cpoUrl, EMSP_TAG);
  expect(put.status).toBe(201);
  const [tags] = await writer.query<RowDataPacket[]>("SELECT id_tag, max_active_transaction_count AS maxActive FROM ocpp_tag WHERE id_tag = ?", [EMSP_TAG]);
  expect(tags).toEqual([{ id_tag: EMSP_TAG, maxActive: 1 }]);
  const back = await emsp.getToken(cpoUrl, EMSP_TAG);
  expect((back.body as Json).data).toEqual(emsp.token(EMSP_TAG));
}

describe("a session by command, with MariaDB stopped in the middle", () => {
  let sessionId: string;
  let transactionPk: number;
  const sessionOnEmsp = () => stored<Json>("local:sessions:DEABC", sessionId);

  /** The scenario's steps in order, the file's first two included: the eMSP holds the Locations its PATCHes apply to, the CPO its token. */
  const scenario = [pulled, tokenPushed, started, sampled, throughOutage, afterOutage];
  /** The steps before `step`, then `step`, on this test's world. */
  const runThrough = async (step: () => Promise<void>) => {
    for (const each of scenario.slice(0, scenario.indexOf(step) + 1)) await each();
  };

  test("START_SESSION: ACCEPTED, then the Session PUT and the EVSE's CHARGING PATCH reach the eMSP", () => runThrough(started), 30_000);

  async function started() {
    const result = await command("START_SESSION", {
      token: emsp.token(EMSP_TAG),
      location_id: ALPHA.id,
      evse_uid: `${ALPHA.id}-2`,
      connector_id: "1",
      authorization_reference: "AUTH-E2E-1",
    });
    expect(result).toMatchObject({ result: { result: "ACCEPTED" } });
    const put = await eventually(() => requests("PUT", "/receiver/sessions/DE/ABC/").find((r) => r.status < 300));
    sessionId = put.path.split("/").pop()!;
    transactionPk = Number(sessionId);
    expect(await sessionOnEmsp()).toMatchObject({
      id: sessionId,
      status: "ACTIVE",
      auth_method: "COMMAND",
      authorization_reference: "AUTH-E2E-1",
      cdr_token: { country_code: "DE", party_id: "EMS", uid: EMSP_TAG, type: "RFID", contract_id: `DE-EMS-C${EMSP_TAG}` },
      location_id: ALPHA.id,
      evse_uid: `${ALPHA.id}-2`,
      connector_id: "1",
      currency: "EUR",
    });
    await eventually(async () => (await stored<Json>("local:locations:DEABC", ALPHA.id))?.evses[1].status === "CHARGING");
    // Its own session, and only that, is the eMSP's to see.
    const sessions = await get("sessions?date_from=2020-01-01T00:00:00Z");
    expect((sessions.body as Json).data.map((s: Json) => s.id)).toEqual([sessionId]);
  }

  test("a meter sample becomes a Session PATCH with kWh and the running cost", () => runThrough(sampled), 30_000);

  async function sampled() {
    await fake.meter(transactionPk, 1500);
    await eventually(async () => (await sessionOnEmsp())?.kwh === 1.5);
    expect(await sessionOnEmsp()).toMatchObject({ kwh: 1.5, total_cost: { before_taxes: 1.1 } });
    expect(requests("PATCH", `/receiver/sessions/DE/ABC/${sessionId}`).every((r) => r.status === 200)).toBe(true);
  }

  test("MariaDB stopped for 10 s: sender GETs answer 503/3000 naming SteVe, the gateway keeps serving", () => runThrough(throughOutage), 60_000);

  async function throughOutage() {
    // A sample the poller has most likely not read yet when the database goes away.
    await fake.meter(transactionPk, 1000);
    await maria.halt();
    try {
      await outage();
    } finally {
      await maria.resume();
    }
  }

  async function outage() {
    const until = Date.now() + 10_000;
    let answers = 0;
    // 10 s, and at least six rounds however slow a loaded machine answers: the count below is the rounds', not the clock's.
    for (let round = 0; round < 6 || Date.now() < until; round++) {
      for (const path of ["locations", `locations/${ALPHA.id}`, "sessions?date_from=2020-01-01T00:00:00Z", "cdrs"]) {
        const res = await get(path);
        expect([res.status, (res.body as Json).status_code, (res.body as Json).status_message]).toEqual([503, 3000, "SteVe database unavailable; retry later"]);
        expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts|ro-e2e/);
        answers++;
      }
      // Readiness reports the adapter whose database does not answer; the tariffs (from the YAML) and the protocol still serve.
      expect((await fetch(`${cpoUrl}/ready`)).status).toBe(503);
      expect((await get("tariffs")).status).toBe(200);
      expect((await ocpiRequest("GET", `${cpoUrl}/ocpi/versions`, { token: emsp.tokenToCpo })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(answers).toBeGreaterThan(20);
  }

  test(
    "after the outage: the sample from before it, the next one, a station status row and the stop all reach the eMSP, with exactly one CDR",
    () => runThrough(afterOutage),
    90_000,
  );

  async function afterOutage() {
    await eventually(async () => (await get("locations")).status === 200, 15_000);
    expect((await fetch(`${cpoUrl}/ready`)).status).toBe(200);
    await fake.meter(transactionPk, 1250);
    await fake.status(BETA.id, 0, "Available");
    await eventually(async () => (await stored<Json>("local:locations:DEABC", BETA.id))?.evses[0].status === "AVAILABLE");
    expect(requests("PATCH", `/receiver/locations/DE/ABC/${BETA.id}/${BETA.id}-1`).map((r) => r.status)).toEqual([200]);
    await eventually(async () => (await sessionOnEmsp())?.kwh === 3.75);

    const stopped = await command("STOP_SESSION", { session_id: sessionId });
    expect(stopped).toMatchObject({ result: { result: "ACCEPTED" } });
    const cdr = await eventually(() => stored<Json>("local:cdrs:DEABC", sessionId), 15_000);
    await eventually(async () => (await sessionOnEmsp())?.status === "COMPLETED");

    // 3.75 kWh × 0.40 = 1.50 plus 0.50 flat = 2.00 before taxes; 20 % VAT = 0.40.
    expect(cdr).toMatchObject({
      id: sessionId,
      session_id: sessionId,
      auth_method: "COMMAND",
      authorization_reference: "AUTH-E2E-1",
      cdr_token: { country_code: "DE", party_id: "EMS", uid: EMSP_TAG },
      cdr_location: { id: ALPHA.id, evse_uid: `${ALPHA.id}-2`, evse_id: ALPHA.evse2.external, connector_id: "1", country: "DEU" },
      currency: "EUR",
      total_energy: 3.75,
      total_cost: { before_taxes: 2, taxes: [{ name: "VAT", amount: 0.4 }] },
      total_energy_cost: { before_taxes: 1.5 },
      total_fixed_cost: { before_taxes: 0.5 },
      tariffs: [{ id: "T-AC" }],
    });
    const session = (await sessionOnEmsp())!;
    const energy = (periods: Json[]) => periods.flatMap((p) => p.dimensions.filter((d: Json) => d.type === "ENERGY").map((d: Json) => d.volume)).reduce((a: number, b: number) => a + b, 0);
    // Every sample made it into the Session the eMSP holds (PUT + appended PATCHes), outage or not.
    expect(energy(session.charging_periods)).toBeCloseTo(3.75, 4);
    expect(energy(cdr.charging_periods)).toBeCloseTo(3.75, 4);

    // Exactly one CDR, however many polls pass (overlap included).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(requests("POST", "/receiver/cdrs").map((r) => r.status)).toEqual([201]);
    expect(requests("PUT", "/receiver/sessions/").length).toBe(1);
    const cdrs = await get("cdrs");
    expect((cdrs.body as Json).data.map((c: Json) => c.id)).toEqual([sessionId]);
  }

  test("unknown_tags: ask_emsp: a token nobody pushed is authorized by its eMSP in real time (RESERVE_NOW), or refused", () => reservedByAsking());

  async function reservedByAsking() {
    // A token only the eMSP's backend knows (its local tokens); the CPO asks it through POST tokens/{uid}/authorize.
    const known = { ...emsp.token("EMSONLY1"), uid: "EMSONLY1" };
    await emsp.gateway.store.put("local:tokens:DEEMS", "EMSONLY1:RFID", known);
    const reserve = (token: Json) => ({ token, expiry_date: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, "Z"), reservation_id: "R-1", location_id: BETA.id, evse_uid: `${BETA.id}-1` });
    expect(await command("RESERVE_NOW", reserve(known))).toMatchObject({ response: { result: "ACCEPTED" }, result: { result: "ACCEPTED" } });
    const [tags] = await writer.query<RowDataPacket[]>("SELECT id_tag FROM ocpp_tag WHERE id_tag = ?", ["EMSONLY1"]);
    expect(tags).toHaveLength(1);
    expect(requests("POST", "/sender/tokens/EMSONLY1/authorize").map((r) => r.status)).toEqual([200]);

    const issued = await emsp.admin("POST", "/commands/cpo/RESERVE_NOW", reserve(emsp.token("NOBODY1")));
    expect((issued.body as Json).data.response).toMatchObject({ result: "REJECTED" });
    expect(requests("POST", "/sender/tokens/NOBODY1/authorize").map((r) => r.status)).toEqual([404]);
  }

  test("no secret in the CPO's log", async () => {
    // The log of the whole scenario: the outage's errors, the REST calls with their credentials, the eMSP asked.
    await runThrough(afterOutage);
    await reservedByAsking();
    if (process.env.SHOW_LOG) console.log(logLines.filter((l) => /unexpected|steve/.test(l)).join(""));
    const log = logLines.join("");
    expect(log).toContain("steve");
    for (const secret of [REST_PASSWORD, access.reader.password, Buffer.from(`${REST_USER}:${REST_PASSWORD}`).toString("base64")]) expect(log).not.toContain(secret);
  }, 90_000);
});
