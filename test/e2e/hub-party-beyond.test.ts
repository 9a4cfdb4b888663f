/** The CPO and eMSP gateways address the party beyond the hub (the world: test/e2e/hub.fixtures.ts): Sessions and CDRs to the token's owner, commands and charging profiles, the hub's response URLs, the CPO's status when it stops. */
import "reflect-metadata";
import { CPO, EMSP, hubWorld, type FakePartner, type Json } from "./hub.fixtures";
import type { Gateway } from "../../app/gateway";
import { ocpiRequest } from "../support/gateway-process";
import { COMMAND_BODIES, adminApi, eventually, location, session, sleep } from "../support/charge-point";
import { cdrOf } from "../support/ocpi-objects";
import { COMMAND_TYPES } from "../../plugins/commands/model";

describe("a hub between a 2.2.1 CPO and a 2.3.0 eMSP", () => {
  const world = hubWorld();
  const { cpoLogs, emspLogs, posted, viaHub, receivedStatus } = world;
  let hub: Gateway;
  let hubUrl: string;
  let emspUrl: string;
  let cpoToken: string;
  let emspToken: string;
  let cpoUrl: string;
  let big: FakePartner;
  let resultsUrl: string;
  beforeAll(() => ({ hub, hubUrl, emspUrl, cpoToken, emspToken, cpoUrl, big, resultsUrl } = world));
  // Every test addresses the CPO party behind the hub, which the eMSP gateway knows only from the hub's
  // ClientInfo push (OCPI 2.2.1 HubClientInfo module): right after the world started that push may still be
  // on its way. Each test waits for it.
  beforeEach(() => eventually(async () => expect(await receivedStatus(CPO)).toBe("CONNECTED"), 10_000, 50), 15_000);

  it("the CPO's Session PUT and PATCH and CDR POST go to the token's owner through the hub, once each, no dead letters; a Location to the hub party", async () => {
    const cpoAdmin = adminApi(cpoUrl);
    const owner = { country_code: "NL", party_id: "CPO" };
    const outboxOfHub = async () => ((await cpoAdmin.get("/outbox")).body.data as Json[]).find((p) => p.partner === "hub")!;
    const before = await outboxOfHub();
    const events = [
      { module: "sessions", owner, path: ["SES5"], kind: "upsert", object: session(owner, "SES5") },
      { module: "sessions", owner, path: ["SES5"], kind: "patch", object: { status: "COMPLETED", kwh: 7, last_updated: "2024-05-01T11:00:00Z" } },
      { module: "cdrs", owner, path: ["CDR5"], kind: "upsert", object: cdrOf({ owner, id: "CDR5", start: "2024-05-01T10:00:00Z", end: "2024-05-01T11:00:00Z", kwh: 7, cost: 3 }) },
    ];
    for (const event of events) expect((await cpoAdmin.post("/events", event)).body.status_code).toBe(1000);
    await eventually(async () => expect(await outboxOfHub()).toMatchObject({ queued: 0, delivered: before.delivered + 3 }), 10_000, 50);
    await sleep(300);
    expect(await outboxOfHub()).toMatchObject({ queued: 0, delivered: before.delivered + 3, rejected: before.rejected, dead_lettered: 0 });
    // each reached the eMSP gateway once, on its 2.3.0 Receiver under the CPO's party, and was taken
    const served = emspLogs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
    const at = (method: string, path: string) => served.filter((l) => l.method === method && l.path === path);
    for (const [method, path] of [
      ["PUT", "/ocpi/2.3.0/receiver/sessions/NL/CPO/SES5"],
      ["PATCH", "/ocpi/2.3.0/receiver/sessions/NL/CPO/SES5"],
      ["POST", "/ocpi/2.3.0/receiver/cdrs"],
    ]) {
      expect(at(method, path)).toHaveLength(1);
      expect(at(method, path)[0]).toMatchObject({ statusCode: 1000 });
    }
    const stored = await viaHub("GET", "/2.2.1/receiver/sessions/NL/CPO/SES5", { token: cpoToken, from: CPO, to: EMSP });
    expect(stored.body).toMatchObject({ status_code: 1000, data: { id: "SES5", status: "COMPLETED", kwh: 7 } });
    // a Location is data for everyone: pushed to the hub party, which broadcasts it (OCPI 2.2.1 Transport and format, Message routing), and so reaches the eMSP too
    const loc = { ...location(owner), id: "LOC8" };
    expect((await cpoAdmin.post("/events", { module: "locations", owner, path: ["LOC8"], kind: "upsert", object: loc })).body.status_code).toBe(1000);
    await eventually(async () => {
      const broadcast = await viaHub("GET", "/2.2.1/receiver/locations/NL/CPO/LOC8", { token: cpoToken, from: CPO, to: EMSP });
      expect(broadcast.body).toMatchObject({ status_code: 1000, data: { id: "LOC8" } });
    }, 10_000, 100);
    expect(await outboxOfHub()).toMatchObject({ rejected: before.rejected, dead_lettered: 0 });
  }, 20_000);

  it("commands from the eMSP gateway's admin API to the CPO party behind the hub: each result is taken once by its own command", async () => {
    const emspAdmin = adminApi(emspUrl);
    const uids: string[] = [];
    for (const command of COMMAND_TYPES) {
      const { body } = await emspAdmin.post(`/commands/hub/${command}?to=NLCPO`, COMMAND_BODIES[command]);
      expect(body).toMatchObject({ status_code: 1000, data: { response: { result: "ACCEPTED" } } });
      uids.push(body.data.uid);
    }
    const commandOf = async (uid: string) => (await emspAdmin.get(`/commands/${uid}`)).body.data as Json;
    await eventually(async () => {
      for (const uid of uids) expect(await commandOf(uid)).toMatchObject({ state: "done", result: { result: "ACCEPTED" } });
    }, 10_000, 50);
    await sleep(500);
    for (const uid of uids) expect(await commandOf(uid)).toMatchObject({ to: { country_code: "NL", party_id: "CPO" }, callbacks: 1, timed_out: false });
    // a result for NL/CPO's command from another party behind the hub is not the command's: 404, not counted
    const hubToEmsp = (await hub.registry.get("emsp"))!.tokenToPartner!;
    const stray = await ocpiRequest("POST", `${emspUrl}/ocpi/2.3.0/sender/commands/${COMMAND_TYPES[0]}/${uids[0]}`, {
      token: hubToEmsp,
      body: { result: "REJECTED" },
      headers: { "OCPI-from-country-code": "NL", "OCPI-from-party-id": "BIG", "OCPI-to-country-code": "DE", "OCPI-to-party-id": "EMS" },
    });
    expect(stray.status).toBe(404);
    expect(await commandOf(uids[0])).toMatchObject({ callbacks: 1, result: { result: "ACCEPTED" } });
    // the CPO got a response URL of the hub's (its policy allows no other), and posted the result there once per command
    const relayed = cpoLogs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "command result queued for the partner");
    expect(relayed.length).toBeGreaterThanOrEqual(COMMAND_TYPES.length);
    // the party must be one the hub lists (hubclientinfo), never ours; nothing is sent otherwise
    for (const to of ["FRXYZ", "DEEMS", "NL-CPO"]) {
      const refused = await emspAdmin.post(`/commands/hub/STOP_SESSION?to=${to}`, COMMAND_BODIES.STOP_SESSION);
      expect(refused.body.status_code).toBe(2001);
      expect(refused.body.status_message).toMatch(/^to: /);
    }
  }, 20_000);

  it("charging profiles from the eMSP gateway's admin API to the CPO party behind the hub: each result is taken once, and the active profile follows", async () => {
    const emspAdmin = adminApi(emspUrl);
    const profile = { charging_rate_unit: "W", charging_profile_period: [{ start_period: 0, limit: 11000 }] };
    const set = await emspAdmin.put("/chargingprofiles/hub/SES1?to=NLCPO", profile);
    expect(set.body).toMatchObject({ status_code: 1000, data: { response: { result: "ACCEPTED" } } });
    const active = await emspAdmin.post("/chargingprofiles/hub/SES1/active?to=NLCPO", { duration: 900 });
    expect(active.body).toMatchObject({ status_code: 1000, data: { response: { result: "ACCEPTED" } } });
    const requestOf = async (uid: string) => (await emspAdmin.get(`/chargingprofiles/requests/${uid}`)).body.data as Json;
    await eventually(async () => {
      for (const { body } of [set, active]) expect(await requestOf(body.data.uid)).toMatchObject({ state: "done", result: { result: "ACCEPTED" } });
    }, 10_000, 50);
    await sleep(500);
    for (const { body } of [set, active]) expect(await requestOf(body.data.uid)).toMatchObject({ to: { country_code: "NL", party_id: "CPO" }, callbacks: 1 });
    // the CPO's later update of the session's active profile goes to the party that set it, through the hub (Part B rules 1-2)
    const update = await adminApi(cpoUrl).put("/active-charging-profiles/SES1", { start_date_time: "2024-05-01T10:30:00Z", charging_profile: profile });
    expect(update.body).toMatchObject({ status_code: 1000, data: { notified: ["hub"] } });
    const updates = () => emspLogs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request" && l.method === "PUT" && l.path === "/ocpi/2.3.0/sender/chargingprofiles/SES1");
    await eventually(async () => expect(updates()).toEqual([expect.objectContaining({ statusCode: 1000 })]), 10_000, 50);
    // a response_url outside the eMSP's outbound policy is refused at the hub, before anything is forwarded
    const steering = await viaHub("POST", "/2.3.0/receiver/commands/STOP_SESSION", { body: { session_id: "SES1", response_url: "http://169.254.169.254/latest/meta-data" } });
    expect(steering.body.status_code).toBe(2001);
    expect(steering.body.status_message).toMatch(/response_url/);
  }, 20_000);

  it("a hub response URL takes a result only from the partner it was given to, once, until it expires", async () => {
    const start = posted.length;
    const sent = await viaHub("POST", "/2.3.0/receiver/commands/STOP_SESSION", {
      to: { country_code: "NL", party_id: "BIG", role: "CPO" },
      body: { session_id: "S1", response_url: `${resultsUrl}/big/1` },
    });
    expect(sent.body).toMatchObject({ status_code: 1000, data: { result: "ACCEPTED" } });
    const relay = big.responseUrls.at(-1)!;
    expect(relay.startsWith(`${hubUrl}/ocpi/hub/results/`)).toBe(true);
    expect(relay).not.toContain(resultsUrl);
    const result = { result: "ACCEPTED" };
    // the CPO (another partner) and the eMSP (the sender) may not post it: answered like an unknown URL
    for (const other of [cpoToken, emspToken]) {
      const refused = await ocpiRequest("POST", relay, { token: other, body: result });
      expect(refused.status).toBe(404);
      expect(refused.body.status_code).toBe(2001);
    }
    const unknown = await ocpiRequest("POST", `${relay}x`, { token: big.hubToken!, body: result });
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2001);
    const taken = await ocpiRequest("POST", relay, { token: big.hubToken!, body: result });
    expect(taken.body.status_code).toBe(1000);
    const repeated = await ocpiRequest("POST", relay, { token: big.hubToken!, body: result });
    expect(repeated.body.status_code).toBe(1000);
    expect(posted.slice(start).map((p) => p.path)).toEqual(["/big/1"]);
    // an invalid result is refused, naming the field
    const again = await viaHub("POST", "/2.3.0/receiver/commands/STOP_SESSION", { to: { country_code: "NL", party_id: "BIG", role: "CPO" }, body: { session_id: "S2", response_url: `${resultsUrl}/big/2` } });
    expect(again.body.status_code).toBe(1000);
    const second = big.responseUrls.at(-1)!;
    const bad = await ocpiRequest("POST", second, { token: big.hubToken!, body: { result: "MAYBE" } });
    expect(bad.body.status_code).toBe(2001);
    expect(bad.body.status_message).toMatch(/\/result/);
    // BIG announced 1 s; the hub adds its command_timeout_seconds (2 s): after that the URL is unknown
    await sleep(3_200);
    const expired = await ocpiRequest("POST", second, { token: big.hubToken!, body: result });
    expect(expired.status).toBe(404);
    expect(expired.body.status_code).toBe(2001);
    expect(posted.slice(start).map((p) => p.path)).toEqual(["/big/1"]);
  }, 20_000);
});

// Stopping the CPO is this test's alone: in a world of its own, a run where it takes longer than its waits
// (a loaded machine) cannot leave the CPO down for the tests above.
describe("a hub between a 2.2.1 CPO and a 2.3.0 eMSP, the CPO stopped and started", () => {
  const world = hubWorld();
  const { viaHub, receivedStatus } = world;

  it("hubclientinfo: the CPO goes OFFLINE when it stops and CONNECTED when it is back, on the eMSP's side", async () => {
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("CONNECTED"), 10_000);
    await world.cpo.close();
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("OFFLINE"), 10_000, 100);
    // forwarding to an OFFLINE receiver: 4003 at once
    const offline = await viaHub("GET", "/2.3.0/sender/locations");
    expect(offline.body.status_code).toBe(4003);
    await world.startCpo();
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("CONNECTED"), 10_000, 100);
    const again = await viaHub("GET", "/2.3.0/sender/locations");
    expect(again.body.status_code).toBe(1000);
    await sleep(10);
    // its three waits of up to 10 s each, and a gateway's stop and start
  }, 45_000);
});
