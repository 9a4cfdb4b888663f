import "reflect-metadata";
import diagnostics from "node:diagnostics_channel";
import type { GatewayConfig } from "../../config/types";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { freePorts, ocpiRequest, partnerRecordOf, startGatewayProcess, writeGatewayConfig, type GatewayProcess } from "../support/gateway-process";
import { numberedCdr, sessionAt, stamp } from "../support/ocpi-objects";
import {
  ADMIN_TOKEN,
  CPO,
  EMSP,
  MODULES,
  OWNER,
  STATUSES,
  admin,
  evseStatuses,
  heldByEmsp,
  location,
  outboxOf,
  postEvent,
  silent,
  startPair,
  statusPatch,
  tariff,
  until,
  type Pair,
} from "../support/push-pair";

/**
 * Issue #5, pushes: a CPO gateway pushes changes of its own data to an
 * eMSP gateway over loopback, both with their own SQLite store and `local`
 * adapter, registered through the real credentials handshake. Changes
 * enter through the admin API (POST /admin/v1/events, as a legacy backend
 * would post them); what the eMSP holds is read back through its receiver
 * interface with the CPO's token; the CPO's queues through GET /admin/v1/outbox.
 */

/** Every outbound call of the in-process gateways goes through undici (core/client/ocpi-client.ts): record the answers from its diagnostics channel. */
interface Answered {
  method: string;
  url: string;
  status: number;
}
const answered: Answered[] = [];
interface UndiciAnswer {
  request: { origin: string; path: string; method: string; headers: string[] };
  response: { statusCode: number };
}
const record = (message: unknown) => {
  const { request, response } = message as UndiciAnswer;
  // this test's own fetch calls (Node's fetch is undici too) carry no X-Request-ID; every gateway call does
  if (!request.headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === "x-request-id")) return;
  answered.push({ method: request.method, url: `${request.origin}${request.path}`, status: response.statusCode });
};

beforeAll(() => diagnostics.subscribe("undici:request:headers", record));

afterAll(() => {
  diagnostics.unsubscribe("undici:request:headers", record);
  removeTempDirs();
});

/* ---------------------------------------------------------------- receiver down, then back */

describe("pushes while the eMSP's receiver is down", () => {
  const evses = ["LOC1-E1", "LOC1-E2", "LOC2-E1", "LOC2-E2"];
  const pairs: Pair[] = [];

  /** A pair of its own for each test: what one test queues, rejects or counts is not another's. */
  const freshPair = async (): Promise<Pair> => {
    // LOCS is the CPO's before the partnership: never pushed, so the eMSP does not know it
    const pair = await startPair({ base_delay_ms: 50, max_delay_ms: 300, backlog_window_ms: 120_000 }, { locations: [location("LOCS", 1)] });
    pairs.push(pair);
    return pair;
  };

  afterAll(async () => {
    await Promise.all(pairs.map((pair) => pair.close()));
  });

  /** LOC1 and LOC2, two EVSEs each, upserted at the CPO and pushed to the eMSP. */
  const pushTwoLocations = async (pair: Pair): Promise<void> => {
    await postEvent(pair.cpoUrl, { module: "locations", owner: OWNER, path: ["LOC1"], kind: "upsert", object: location("LOC1", 2) });
    await postEvent(pair.cpoUrl, { module: "locations", owner: OWNER, path: ["LOC2"], kind: "upsert", object: location("LOC2", 2) });
    await until("the eMSP holds LOC1 and LOC2", async () =>
      Boolean((await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1")) && (await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC2"))),
    );
  };

  /** With the eMSP stopped, 200 status changes of the four EVSEs and a CDR after every tenth; answers each EVSE's latest status and the CDR count. */
  const changeWhileDown = async (pair: Pair): Promise<{ latest: Record<string, string>; cdrs: number }> => {
    await pair.stopEmsp();
    const latest: Record<string, string> = {};
    let cdrs = 0;
    for (let i = 0; i < 200; i++) {
      const uid = evses[i % evses.length];
      const status = STATUSES[i % STATUSES.length];
      latest[uid] = status;
      await postEvent(pair.cpoUrl, statusPatch(uid.split("-")[0], uid, status, 1000 + i));
      if (i % 10 === 9) await postEvent(pair.cpoUrl, { module: "cdrs", owner: OWNER, path: [numberedCdr(++cdrs).id], kind: "upsert", object: numberedCdr(cdrs) });
    }
    return { latest, cdrs };
  };

  it("an upsert event is stored at the CPO and PUT to the eMSP", async () => {
    const pair = await freshPair();
    await pushTwoLocations(pair);
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1")).toEqual(location("LOC1", 2));
    // the CPO serves it from its sender interface too
    const emspToken = (await pair.emsp.registry.get("cpo"))!.tokenToPartner!;
    const served = await ocpiRequest("GET", `${pair.cpoUrl}/ocpi/2.3.0/sender/locations/LOC1`, { token: emspToken });
    expect(served.body.data).toEqual(location("LOC1", 2));
  });

  it("200 status changes and 20 CDRs wait in the outbox, status changes of one EVSE collapsed", async () => {
    const pair = await freshPair();
    await pushTwoLocations(pair);
    const { cdrs } = await changeWhileDown(pair);
    expect(cdrs).toBe(20);
    const queue = await outboxOf(pair.cpoUrl, "emsp");
    // 20 CDRs, one waiting status per EVSE, plus at most one status that was tried already (it keeps its place)
    expect(queue.queued).toBeGreaterThanOrEqual(24);
    expect(queue.queued).toBeLessThanOrEqual(25);
    expect(queue.head).toMatchObject({ attempts: expect.any(Number), last_error: expect.stringContaining("ECONNREFUSED") });
    expect(queue.resync_pending).toBe(false);
  });

  it("once the eMSP is back, every CDR arrives exactly once and each EVSE ends with its latest status", async () => {
    const pair = await freshPair();
    await pushTwoLocations(pair);
    const { latest } = await changeWhileDown(pair);
    const postsBefore = answered.length;
    await pair.startEmsp();
    await until("the CPO's outbox for the eMSP is empty", async () => (await outboxOf(pair.cpoUrl, "emsp")).queued === 0);

    for (let n = 1; n <= 20; n++) expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, `cdrs/NL/CPO/${numberedCdr(n).id}`)).toEqual(numberedCdr(n));
    const cdrPosts = answered.slice(postsBefore).filter((a) => a.method === "POST" && a.url.endsWith("/receiver/cdrs"));
    expect(cdrPosts.map((a) => a.status)).toEqual(Array(20).fill(201));

    const held = {
      ...evseStatuses(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1")),
      ...evseStatuses(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC2")),
    };
    expect(held).toEqual(latest);
    // and fewer status PATCHes than changes went over the wire
    const patches = answered.slice(postsBefore).filter((a) => a.method === "PATCH" && a.status === 200);
    expect(patches.length).toBeLessThan(20);
    const queue = await outboxOf(pair.cpoUrl, "emsp");
    expect(queue).toMatchObject({ queued: 0, rejected: 0, dropped: 0, resync_pending: false });
  });

  it("a 2xxx rejection is logged, counted and not retried", async () => {
    const pair = await freshPair();
    await pushTwoLocations(pair);
    const before = answered.length;
    // the eMSP never received LOCS: it answers 404 with 2001
    await postEvent(pair.cpoUrl, statusPatch("LOCS", "LOCS-E1", "CHARGING", 5000));
    await postEvent(pair.cpoUrl, statusPatch("LOC1", "LOC1-E1", "OUTOFORDER", 5001));
    await until("the next push arrived", async () => evseStatuses(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1"))["LOC1-E1"] === "OUTOFORDER");
    await until("the rejection is counted", async () => (await outboxOf(pair.cpoUrl, "emsp")).rejected === 1);
    // wait well past the retry delays: still one attempt
    await new Promise((resolve) => setTimeout(resolve, 500));
    const refused = answered.slice(before).filter((a) => a.url.endsWith("/receiver/locations/NL/CPO/LOCS/LOCS-E1"));
    expect(refused).toEqual([expect.objectContaining({ method: "PATCH", status: 404 })]);
    expect(await outboxOf(pair.cpoUrl, "emsp")).toMatchObject({ queued: 0, rejected: 1 });
  });

  it("an unpublished Location and changes to it are stored but not pushed", async () => {
    const pair = await freshPair();
    await pushTwoLocations(pair);
    const before = answered.length;
    const home = { ...location("HOME1", 1), publish: false, publish_allowed_to: [{ visual_number: "123", issuer: "X" }] };
    await postEvent(pair.cpoUrl, { module: "locations", owner: OWNER, path: ["HOME1"], kind: "upsert", object: home });
    await postEvent(pair.cpoUrl, statusPatch("HOME1", "HOME1-E1", "CHARGING", 6000));
    // a published change queued behind them arrives: everything before it was decided
    await postEvent(pair.cpoUrl, statusPatch("LOC1", "LOC1-E1", "AVAILABLE", 6001));
    await until("the later push arrived", async () => evseStatuses(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1"))["LOC1-E1"] === "AVAILABLE");
    expect(answered.slice(before).filter((a) => a.url.includes("HOME1"))).toEqual([]);
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/HOME1")).toBeUndefined();
  });

  it("the eMSP's token changes reach the CPO: PUT and PATCH with the token's type", async () => {
    const pair = await freshPair();
    const emspToken = (await pair.emsp.registry.get("cpo"))!.tokenToPartner!;
    const owner = { country_code: "DE", party_id: "EMS" };
    const appToken = { ...owner, uid: "APP-0001", type: "APP_USER", contract_id: "DE-EMS-C00001", issuer: "EMS", valid: true, whitelist: "ALLOWED", last_updated: stamp(1) };
    await postEvent(pair.emspUrl, { module: "tokens", owner, path: ["APP-0001"], kind: "upsert", object: appToken });
    const heldByCpo = () => heldByEmsp(pair.cpoUrl, emspToken, "tokens/DE/EMS/APP-0001?type=APP_USER");
    await until("the CPO holds the token", async () => (await heldByCpo()) !== undefined);
    expect(await heldByCpo()).toEqual(appToken);
    await postEvent(pair.emspUrl, { module: "tokens", owner, path: ["APP-0001"], kind: "patch", object: { type: "APP_USER", valid: false, last_updated: stamp(2) } });
    await until("the CPO holds the blocked token", async () => (await heldByCpo())?.valid === false);
    expect(await heldByCpo()).toEqual({ ...appToken, valid: false, last_updated: stamp(2) });
  });

  describe("POST /admin/v1/events refuses bad events with 2001 naming the field", () => {
    let pair: Pair;
    beforeAll(async () => {
      pair = await freshPair();
      await pushTwoLocations(pair);
    }, 30_000);

    it.each([
      ["no owner", { module: "locations", path: ["LOC1"], kind: "upsert", object: {} }, "/owner"],
      ["an unknown kind", { module: "locations", owner: OWNER, path: ["LOC1"], kind: "replace" }, "/kind"],
      ["an empty path", { module: "locations", owner: OWNER, path: [], kind: "delete" }, "/path"],
      ["an invalid EVSE status", statusPatch("LOC1", "LOC1-E1", "ON_FIRE", 1), "/object/status"],
      ["a patch without last_updated", { ...statusPatch("LOC1", "LOC1-E1", "CHARGING", 1), object: { status: "CHARGING" } }, "/object/last_updated"],
      ["a deleted location", { module: "locations", owner: OWNER, path: ["LOC1"], kind: "delete" }, "/kind"],
      ["a module not served", { module: "bookings", owner: OWNER, path: ["B1"], kind: "delete" }, "/module"],
      ["someone else's data", { module: "locations", owner: { country_code: "DE", party_id: "EMS" }, path: ["L"], kind: "upsert", object: {} }, "/owner"],
      ["an id differing from the path", { module: "locations", owner: OWNER, path: ["LOC9"], kind: "upsert", object: location("LOC1", 1) }, "/object/id"],
      ["a path too deep", { module: "tariffs", owner: OWNER, path: ["T1", "X"], kind: "delete" }, "/path"],
    ])("%s", async (_name, event, field) => {
      const result = await admin(pair.cpoUrl, "POST", "/events", event);
      expect(result.status).toBe(200);
      expect(result.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining(field) });
    });

    it("answers 404 for an object the adapter does not hold, and 401 without the admin token", async () => {
      const unknown = await admin(pair.cpoUrl, "POST", "/events", statusPatch("LOC404", "E1", "CHARGING", 1));
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("LOC404") });
      const anonymous = await admin(pair.cpoUrl, "POST", "/events", statusPatch("LOC1", "LOC1-E1", "CHARGING", 1), "not-the-admin-token");
      expect(anonymous.status).toBe(401);
      expect(anonymous.text).not.toContain(ADMIN_TOKEN);
    });
  });
});

/* ---------------------------------------------------------------- backlog window */

describe("a partner unreachable past its backlog window", () => {
  const pairs: Pair[] = [];

  afterAll(async () => {
    await Promise.all(pairs.map((pair) => pair.close()));
  });

  /**
   * A pair of its own, LOC1 pushed; then, with the eMSP stopped, changes of every kind until the backlog
   * window has passed: what is left queued is the essential messages and the probe, and a resync is due.
   */
  const pastTheWindow = async (): Promise<Pair> => {
    const pair = await startPair({ base_delay_ms: 20, max_delay_ms: 100, backlog_window_ms: 300 });
    pairs.push(pair);
    await postEvent(pair.cpoUrl, { module: "locations", owner: OWNER, path: ["LOC1"], kind: "upsert", object: location("LOC1", 2) });
    await until("the eMSP holds LOC1", async () => Boolean(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1")));
    await pair.stopEmsp();
    await postEvent(pair.cpoUrl, { module: "locations", owner: OWNER, path: ["LOC2"], kind: "upsert", object: location("LOC2", 1, 10) });
    await postEvent(pair.cpoUrl, { module: "sessions", owner: OWNER, path: ["S1"], kind: "upsert", object: sessionAt("S1", "ACTIVE", 20) });
    await postEvent(pair.cpoUrl, { module: "tariffs", owner: OWNER, path: ["T1"], kind: "upsert", object: tariff("T1") });
    for (let i = 0; i < 30; i++) await postEvent(pair.cpoUrl, statusPatch("LOC1", `LOC1-E${(i % 2) + 1}`, STATUSES[i % 5], 100 + i));
    for (let n = 1; n <= 5; n++) await postEvent(pair.cpoUrl, { module: "cdrs", owner: OWNER, path: [numberedCdr(n).id], kind: "upsert", object: numberedCdr(n) });
    await postEvent(pair.cpoUrl, { module: "sessions", owner: OWNER, path: ["S2"], kind: "upsert", object: sessionAt("S2", "COMPLETED", 30) });

    // what is left: the 5 CDRs, the completed session and the probe that ends the wait
    await until("only essential messages are queued", async () => {
      const queue = await outboxOf(pair.cpoUrl, "emsp");
      return queue.resync_pending && queue.queued === 7;
    });
    return pair;
  };

  it("gets its backlog dropped, essential messages kept, and is marked for a full resync", async () => {
    const pair = await pastTheWindow();
    const queue = await outboxOf(pair.cpoUrl, "emsp");
    expect(queue.dropped).toBeGreaterThanOrEqual(4);
    expect(queue.resync_since).toEqual(expect.any(String));
  });

  it("back again, it gets the essential messages and then the current state of everything", async () => {
    const pair = await pastTheWindow();
    await pair.startEmsp();
    await until("the resync is done and delivered", async () => {
      const queue = await outboxOf(pair.cpoUrl, "emsp");
      return !queue.resync_pending && queue.queued === 0;
    });
    for (let n = 1; n <= 5; n++) expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, `cdrs/NL/CPO/${numberedCdr(n).id}`)).toEqual(numberedCdr(n));
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "sessions/NL/CPO/S2")).toEqual(sessionAt("S2", "COMPLETED", 30));
    // dropped updates come back with the resync, as the CPO holds them now
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "sessions/NL/CPO/S1")).toEqual(sessionAt("S1", "ACTIVE", 20));
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "tariffs/NL/CPO/T1")).toEqual(tariff("T1"));
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC2")).toEqual(location("LOC2", 1, 10));
    const emspToken = (await pair.emsp.registry.get("cpo"))!.tokenToPartner!;
    const current = await ocpiRequest("GET", `${pair.cpoUrl}/ocpi/2.3.0/sender/locations/LOC1`, { token: emspToken });
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1")).toEqual(current.body.data);
    expect(evseStatuses(current.body.data)).toEqual({ "LOC1-E1": STATUSES[28 % 5], "LOC1-E2": STATUSES[29 % 5] });
  });
});

/* ---------------------------------------------------------------- a 2.1.1 partner */

describe("a 2.1.1 partner", () => {
  let pair: Pair;

  beforeAll(async () => {
    pair = await startPair({ base_delay_ms: 50, max_delay_ms: 300 }, {}, ["2.1.1"]);
  }, 30_000);

  afterAll(async () => {
    await pair?.close();
  });

  it("gets pushes on its one endpoint per module, in 2.1.1", async () => {
    expect(await pair.cpo.registry.get("emsp")).toMatchObject({ version: "2.1.1" });
    await postEvent(pair.cpoUrl, { module: "locations", owner: OWNER, path: ["LOC1"], kind: "upsert", object: location("LOC1", 2) });
    await postEvent(pair.cpoUrl, statusPatch("LOC1", "LOC1-E2", "CHARGING", 10));
    await postEvent(pair.cpoUrl, { module: "tariffs", owner: OWNER, path: ["T1"], kind: "upsert", object: tariff("T1") });
    await until("all three were delivered", async () => (await outboxOf(pair.cpoUrl, "emsp")).delivered === 3);
    expect(await outboxOf(pair.cpoUrl, "emsp")).toMatchObject({ queued: 0, rejected: 0 });
    const held = await heldByEmsp(pair.emspUrl, pair.cpoToken, "locations/NL/CPO/LOC1", "2.1.1");
    // 2.1.1 Locations name no owner and call parking_type `type`
    expect(held).toMatchObject({ id: "LOC1", type: "UNKNOWN", evses: [{ uid: "LOC1-E1", status: "AVAILABLE" }, { uid: "LOC1-E2", status: "CHARGING" }] });
    expect(held).not.toHaveProperty("country_code");
    expect(await heldByEmsp(pair.emspUrl, pair.cpoToken, "tariffs/NL/CPO/T1", "2.1.1")).toMatchObject({ id: "T1", currency: "EUR" });
  });
});

/* ---------------------------------------------------------------- a CPO process killed with pushes queued */

describe("a CPO gateway process killed with pushes queued", () => {
  let cpo: GatewayProcess;
  let emsp: Gateway;
  let emspConfig: GatewayConfig;
  let emspUrl: string;
  let cpoToken: string;

  beforeAll(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    const tokenA = `push-kill-token-A-${cpoPort}`;
    emspUrl = `http://127.0.0.1:${emspPort}`;
    cpo = await startGatewayProcess(
      writeGatewayConfig({
        port: cpoPort,
        party: CPO,
        modules: MODULES,
        server: { admin_token: ADMIN_TOKEN },
        partners: [{ id: "emsp", token_a: tokenA, versions_url: versionsUrlOf(emspPort), push: { base_delay_ms: 50, max_delay_ms: 300 } }],
      }),
    );
    emspConfig = testGatewayConfig({ port: emspPort, party: EMSP, modules: MODULES, partners: [{ id: "cpo", token_a: tokenA, versions_url: cpo.versionsUrl }] });
    emsp = await Gateway.create(emspConfig, silent);
    await emsp.listen();
    await emsp.credentials.register("cpo");
    cpoToken = (await partnerRecordOf(cpo.config, "emsp"))!.tokenToPartner!;
    await postEvent(cpo.url, { module: "locations", owner: OWNER, path: ["LOC1"], kind: "upsert", object: location("LOC1", 2) });
    await until("the eMSP holds LOC1", async () => Boolean(await heldByEmsp(emspUrl, cpoToken, "locations/NL/CPO/LOC1")));
  }, 30_000);

  afterAll(async () => {
    await Promise.all([cpo?.stop(), emsp?.close()]);
  }, 30_000);

  const restartEmsp = async () => {
    emsp = await Gateway.create(emspConfig, silent);
    await emsp.listen();
  };

  it("delivers after SIGKILL and restart what was queued before", async () => {
    await emsp.close();
    for (let i = 0; i < 10; i++) await postEvent(cpo.url, statusPatch("LOC1", `LOC1-E${(i % 2) + 1}`, STATUSES[i % 5], 200 + i));
    for (let n = 1; n <= 3; n++) await postEvent(cpo.url, { module: "cdrs", owner: OWNER, path: [numberedCdr(n).id], kind: "upsert", object: numberedCdr(n) });
    expect((await outboxOf(cpo.url, "emsp")).queued).toBeGreaterThanOrEqual(5);

    await cpo.kill();
    cpo = await startGatewayProcess(cpo);
    await restartEmsp();
    // killed while it was trying the eMSP, the old process still holds the queue's lock: the restarted one
    // waits for it to expire (LOCK_TTL_MS, 30 s; README "Restarts"), so the wait covers that
    await until("the restarted CPO delivered its queue", async () => (await outboxOf(cpo.url, "emsp")).queued === 0, 45_000);
    for (let n = 1; n <= 3; n++) expect(await heldByEmsp(emspUrl, cpoToken, `cdrs/NL/CPO/${numberedCdr(n).id}`)).toEqual(numberedCdr(n));
    expect(evseStatuses(await heldByEmsp(emspUrl, cpoToken, "locations/NL/CPO/LOC1"))).toEqual({ "LOC1-E1": STATUSES[8 % 5], "LOC1-E2": STATUSES[9 % 5] });
  }, 60_000);

  it("a graceful stop keeps the queue too", async () => {
    await emsp.close();
    await postEvent(cpo.url, { module: "cdrs", owner: OWNER, path: [numberedCdr(4).id], kind: "upsert", object: numberedCdr(4) });
    await postEvent(cpo.url, statusPatch("LOC1", "LOC1-E1", "RESERVED", 300));
    expect((await outboxOf(cpo.url, "emsp")).queued).toBe(2);
    expect(await cpo.stop()).toBe(0);
    cpo = await startGatewayProcess(cpo);
    await restartEmsp();
    await until("the restarted CPO delivered its queue", async () => (await outboxOf(cpo.url, "emsp")).queued === 0);
    expect(await heldByEmsp(emspUrl, cpoToken, `cdrs/NL/CPO/${numberedCdr(4).id}`)).toEqual(numberedCdr(4));
    expect(evseStatuses(await heldByEmsp(emspUrl, cpoToken, "locations/NL/CPO/LOC1"))["LOC1-E1"]).toBe("RESERVED");
  });
});
