import { removeTempDirs } from "../support/gateway-config";
import { ALPHA, BETA } from "../support/steve-seed";
import * as harness from "./steve-cpo-harness";
import { eventually, expectedLocations, startSteveCpo, type Json, type SteveCpo } from "./steve-cpo-harness";

/**
 * The steve adapter end to end on SteVe's older schema generation (3.9 to
 * 3.12: table `connector`, no `evse_connector`, no update times, no address
 * time zone; docs/steve.md, "Versions supported"), which the adapter detects at
 * start: the eMSP pulls every mapped Location field, a station's status row
 * becomes an EVSE PATCH, and a session started and stopped by command
 * reaches it as a Session PUT and PATCHes and exactly one priced CDR.
 * steve-cpo.test.ts runs the whole path (outage included) on 3.14.
 */

const EMSP_TAG = "EMSOLD1";
let env: SteveCpo;
/** this test's world, until afterEach closed it */
let opened: SteveCpo | undefined;

// A world per test: the status and session tests change what the pull test reads (BETA's status, the list's
// order by last_updated), and need the Locations the eMSP holds once it has pulled them (pulled()).
beforeEach(async () => {
  opened = env = await startSteveCpo("3.12");
  // What SteVe holds when the CPO's poller first polls counts as published: a test's changes come after that poll.
  await eventually(() => env.logLines.some((l) => l.includes("steve: first poll")));
}, 60_000);
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});
afterAll(() => removeTempDirs());

const get = (path: string) => harness.senderGet(env, path);
const stored = <T>(collection: string, key: string) => harness.stored<T>(env, collection, key);
const requests = (method: string, pathPart: string) => harness.requests(env, method, pathPart);

test("the eMSP pulls every mapped Location field: plugs from the YAML's defaults, eMI3 EVSE ids, dates from the status rows", async () => {
  const expected = expectedLocations("3.12");
  const list = await get("locations");
  expect([list.status, (list.body as Json).data, list.headers["x-total-count"]]).toEqual([200, expected, "2"]);
  expect(((await get(`locations/${ALPHA.id}`)).body as Json).data).toEqual(expected.find((l) => l.id === ALPHA.id));
  expect(((await get(`locations/${ALPHA.id}/${ALPHA.id}-2/1`)).body as Json).data).toEqual(expected.find((l) => l.id === ALPHA.id)!.evses[1].connectors[0]);
  await pulled();
  expect(await stored<Json>("local:locations:DEABC", BETA.id)).toMatchObject({ evses: [{ status: "OUTOFORDER" }] });
});

/** The eMSP pulls the CPO's Locations: the EVSE PATCHes and the session's EVSE status go to what it holds. */
async function pulled() {
  expect((await env.emsp.admin("POST", "/sync/cpo/locations")).status).toBe(200);
}

test("a station's status row reaches the eMSP as an EVSE PATCH", async () => {
  await pulled();
  await env.fake.status(BETA.id, 0, "Available");
  await eventually(async () => (await stored<Json>("local:locations:DEABC", BETA.id))?.evses[0].status === "AVAILABLE");
  expect(requests("PATCH", `/receiver/locations/DE/ABC/${BETA.id}/${BETA.id}-1`).map((r) => r.status)).toEqual([200]);
});

test("a session by command: Session PUT and PATCHes, then exactly one CDR with the energy and cost", async () => {
  await pulled();
  expect((await env.emsp.putToken(env.cpoUrl, EMSP_TAG)).status).toBe(201);
  const started = await harness.command(env, "START_SESSION", { token: env.emsp.token(EMSP_TAG), location_id: ALPHA.id, evse_uid: `${ALPHA.id}-2`, connector_id: "1" });
  expect(started).toMatchObject({ result: { result: "ACCEPTED" } });
  const put = await eventually(() => requests("PUT", "/receiver/sessions/DE/ABC/").find((r) => r.status < 300));
  const sessionId = put.path.split("/").pop()!;
  const session = () => stored<Json>("local:sessions:DEABC", sessionId);
  expect(await session()).toMatchObject({ status: "ACTIVE", auth_method: "COMMAND", cdr_token: { party_id: "EMS", uid: EMSP_TAG }, location_id: ALPHA.id, evse_uid: `${ALPHA.id}-2` });
  await eventually(async () => (await stored<Json>("local:locations:DEABC", ALPHA.id))?.evses[1].status === "CHARGING");

  await env.fake.meter(Number(sessionId), 2500);
  await eventually(async () => (await session())?.kwh === 2.5);
  expect(await harness.command(env, "STOP_SESSION", { session_id: sessionId })).toMatchObject({ result: { result: "ACCEPTED" } });
  const cdr = await eventually(() => stored<Json>("local:cdrs:DEABC", sessionId), 15_000);
  await eventually(async () => (await session())?.status === "COMPLETED");
  // 2.5 kWh × 0.40 = 1.00 plus 0.50 flat = 1.50 before taxes; 20 % VAT = 0.30.
  expect(cdr).toMatchObject({
    id: sessionId,
    cdr_token: { party_id: "EMS", uid: EMSP_TAG },
    cdr_location: { id: ALPHA.id, evse_uid: `${ALPHA.id}-2`, evse_id: "DE*ABC*ECBALPHA*2", connector_id: "1", connector_standard: "IEC_62196_T2", connector_power_type: "AC_3_PHASE" },
    total_energy: 2.5,
    total_cost: { before_taxes: 1.5, taxes: [{ name: "VAT", amount: 0.3 }] },
    tariffs: [{ id: "T-AC" }],
  });
  // however many polls pass (their overlap re-reads the transaction)
  await new Promise((r) => setTimeout(r, 1_000));
  expect(requests("POST", "/receiver/cdrs").map((r) => r.status)).toEqual([201]);
  expect(requests("PUT", "/receiver/sessions/").length).toBe(1);
  expect(((await get("cdrs")).body as Json).data.map((c: Json) => c.id)).toEqual([sessionId]);
}, 40_000);
