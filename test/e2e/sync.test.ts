import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { Gateway } from "../../app/gateway";
import type { GatewayConfig } from "../../config/types";
import type { Location } from "../../plugins/locations/model";
import type { Session } from "../../plugins/sessions/model";
import { gatewayConfigYaml, redisStore, removeTempDirs, sqliteStore, tempDir, testGatewayConfig, type GatewayConfigOptions } from "../support/gateway-config";
import { ocpiRequest, runCli } from "../support/gateway-process";
import {
  ADMIN_TOKEN,
  EMSP,
  EVERY_SECOND,
  LOCATIONS,
  LogLines,
  PAGE,
  TOKEN_A,
  TOKEN_A_REDIS,
  adminSync,
  changeOnCpo,
  closeWorlds,
  emspLocations,
  emspReceiverGet,
  expectEachExactlyOnce,
  firstPull,
  idOf,
  location,
  registered,
  renameFive,
  seededLocation,
  session,
  sleep,
  startWorld,
  waitFor,
  watermarkOf,
  writeOnCpo,
  type World,
} from "../support/sync-world";

/**
 * Issue #5, sync pulls, end to end: a CPO gateway and eMSP gateways
 * in-process on loopback, each with its own store and `local` adapter,
 * registered through the real credentials handshake. The eMSP pulls the
 * CPO's 1,000 Locations on a cron schedule (every second here), then only
 * what changed; a pull the CPO breaks off half-way is resumed without loss
 * or duplicates; on-demand pulls run from the admin API and the CLI; two
 * eMSP instances on one Redis run each scheduled tick once.
 *
 * The CPO is reached through a loopback proxy (its public_url, so the Link
 * headers point there too) that records each request and can cut the
 * connection of chosen ones, as a CPO failing mid-pull would.
 */

const redisInstances: Gateway[] = [];

afterAll(async () => {
  await Promise.all(redisInstances.map((g) => g.close()));
  await closeWorlds();
  removeTempDirs();
});

/* ---------------------------------------------------------------- tests */

describe("cron sync pulls between a CPO and an eMSP gateway", () => {
  it("pulls all 1,000 Locations on the first tick after registration: a full pull, page by page", async () => {
    const w = await startWorld();
    const { proxy, logs, emsp } = w;
    const pull = await firstPull(w);
    expect(pull).toMatchObject({ partner: "cpo", module: "locations", trigger: "schedule", full: true, objects: LOCATIONS, pages: LOCATIONS / PAGE, rejected: 0 });
    expect(pull.tick).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/));
    // a full pull of locations asks without date_from and follows the Link headers through every page
    const requests = proxy.listRequests("locations");
    expect(requests[0].searchParams.has("date_from")).toBe(false);
    expect(requests.slice(0, LOCATIONS / PAGE).map((u) => Number(u.searchParams.get("offset") ?? 0))).toEqual(
      Array.from({ length: LOCATIONS / PAGE }, (_, i) => i * PAGE),
    );
    expectEachExactlyOnce(await emspLocations(emsp));
    expect(await emspReceiverGet(w, idOf(417))).toEqual(seededLocation(417));
    // no secret in any log line
    const text = JSON.stringify(logs.emsp.lines) + JSON.stringify(logs.cpo.lines);
    for (const secret of [TOKEN_A, ADMIN_TOKEN, (await emsp.registry.get("cpo"))!.tokenToPartner!]) expect(text).not.toContain(secret);
  });

  it("then pulls only the Locations that changed, from the watermark minus the overlap", async () => {
    const w = await startWorld();
    const { proxy, logs, emsp } = w;
    await firstPull(w);
    const requestsBefore = proxy.requests.length;
    const { pull, changedAt } = await renameFive(w);
    expect(pull).toMatchObject({ full: false, objects: 5, pages: 1 });
    // every pull since the first asked from the previous one's start (the watermark) minus the default 60 s, and none was a full pull again
    const completed = logs.emsp.completed();
    expect(completed.filter((l) => l.full)).toHaveLength(1);
    expect(completed.length).toBeGreaterThan(1);
    for (let i = 1; i < completed.length; i++) {
      const previousStart = completed[i - 1].time - completed[i - 1].ms;
      expect(Math.abs(Date.parse(completed[i].dateFrom) - (previousStart - 60_000))).toBeLessThanOrEqual(1500);
    }
    expect((await watermarkOf(emsp, "cpo"))!).toBeGreaterThan(changedAt - 1000);
    const requests = proxy.listRequests("locations", requestsBefore);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.searchParams.get("date_from")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    for (const n of [3, 265]) expect(await emspReceiverGet(w, idOf(n))).toMatchObject({ name: `Renamed ${n}` });
    expect(await emspReceiverGet(w, idOf(4))).toMatchObject({ name: "Station 4" });
    expectEachExactlyOnce(await emspLocations(emsp));
  });

  it("keeps the watermark when the CPO fails mid-pull, and the next pull resumes without loss or duplicates", async () => {
    const w = await startWorld();
    const { proxy, logs, emsp } = w;
    await firstPull(w);
    // five earlier changes, pulled: still within the overlap window of every pull below
    await renameFive(w);
    const changed = Array.from({ length: 300 }, (_, i) => 500 + i);
    // The CPO's connection drops on the second page of every list from now on.
    proxy.cut = (url) => url.pathname.endsWith("/sender/locations") && Number(url.searchParams.get("offset") ?? 0) >= PAGE;
    await changeOnCpo(w, changed, (n) => `Round two ${n}`);
    const changedAt = Date.now();

    const failure = await waitFor("a pull broken off after its first page", () => logs.emsp.failed(changedAt)[0]);
    expect(failure).toMatchObject({ partner: "cpo", module: "locations", trigger: "schedule", pages: 1, objects: PAGE });
    expect(failure.error).toContain("failed");
    // failing pulls leave the watermark where the last completed one put it
    const watermarkBefore = await watermarkOf(emsp, "cpo");
    const failuresSoFar = logs.emsp.failed(changedAt).length;
    await waitFor("two more failed pulls", () => logs.emsp.failed(changedAt).length >= failuresSoFar + 2);
    expect(await watermarkOf(emsp, "cpo")).toBe(watermarkBefore);
    expect(logs.emsp.completed(changedAt)).toEqual([]);
    // the first page was stored, the rest of the change not yet
    const halfway = (await emspLocations(emsp)).filter((l) => l.name?.startsWith("Round two"));
    expect(halfway.length).toBeGreaterThan(0);
    expect(halfway.length).toBeLessThan(changed.length);

    proxy.cut = () => false;
    const healedAt = Date.now();
    const resumed = await waitFor("a pull after the CPO recovered", () => logs.emsp.completed(healedAt)[0]);
    // from the old watermark: the 5 earlier changes are still within the overlap window, and every one of the 300
    expect(resumed).toMatchObject({ full: false, objects: 305, pages: 4 });
    expect(await watermarkOf(emsp, "cpo")).toBeGreaterThan(watermarkBefore!);
    const held = await emspLocations(emsp);
    expectEachExactlyOnce(held);
    const byId = new Map(held.map((l) => [l.id, l]));
    for (const n of changed) expect(byId.get(idOf(n))!.name).toBe(`Round two ${n}`);
    expect(byId.get(idOf(499))!.name).toBe("Station 499");
    expect(await emspReceiverGet(w, idOf(799))).toMatchObject({ name: "Round two 799" });
  });
});

describe("sync pulls on demand", () => {
  // beside the scheduled pulls of a serving gateway; these tests leave the CPO's data as it is
  let w: World;
  beforeAll(async () => {
    w = await startWorld();
  });

  it("runs a full pull from the admin API and answers its counts", async () => {
    const { status, body } = await adminSync(w, "cpo/locations?full=true");
    expect(status).toBe(200);
    expect(body).toMatchObject({ status_code: 1000, data: { partner: "cpo", module: "locations", full: true, objects: LOCATIONS, pages: LOCATIONS / PAGE, rejected: 0 } });
    expect(body.data.date_from).toBeUndefined();
    expect(body.data.duration_ms).toEqual(expect.any(Number));
    expectEachExactlyOnce(await emspLocations(w.emsp));
  });

  it("asks a sessions list from the epoch on a first pull, as sessions require date_from", async () => {
    const { proxy, emsp } = w;
    const before = proxy.requests.length;
    const { body } = await adminSync(w, "cpo/sessions");
    expect(body).toMatchObject({ status_code: 1000, data: { module: "sessions", full: true, objects: 1, date_from: "1970-01-01T00:00:00Z" } });
    expect(proxy.listRequests("sessions", before)[0].searchParams.get("date_from")).toBe("1970-01-01T00:00:00Z");
    const stored = await emsp.store.get<Session>("local:sessions:NLCPO", "SES-0001");
    expect(stored).toEqual(session);
    // the second pull is incremental
    const again = await adminSync(w, "cpo/sessions");
    expect(again.body.data).toMatchObject({ full: false, objects: 0 });
    expect(Date.parse(again.body.data.date_from)).toBeGreaterThan(Date.now() - 70_000);
  });

  it("answers 2001 naming what is wrong, 401 without the admin token, and 502 when the partner fails", async () => {
    const tariffs = await adminSync(w, "cpo/tariffs");
    expect(tariffs.body.status_code).toBe(2001);
    expect(tariffs.body.status_message).toContain("module: tariffs cannot be pulled");
    const unknown = await adminSync(w, "nobody/locations");
    expect(unknown.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("partner: nobody") });
    const flag = await adminSync(w, "cpo/locations?full=yes");
    expect(flag.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("full") });
    const anonymous = await ocpiRequest("POST", `${w.emspUrl}/admin/v1/sync/cpo/locations`);
    expect(anonymous.status).toBe(401);

    const { proxy } = w;
    proxy.cut = (url) => url.pathname.endsWith("/sender/sessions");
    try {
      const failed = await adminSync(w, "cpo/sessions?full=true");
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ status_code: 3001, status_message: expect.stringContaining("The pull failed") });
    } finally {
      proxy.cut = () => false;
    }
  });

  it("runs a pull from the CLI beside the serving gateway (same SQLite file)", async () => {
    const file = path.join(tempDir("ocpi-sync-cli-"), "gateway.config.yaml");
    fs.writeFileSync(file, gatewayConfigYaml(w.emspOptions));
    let result = await runCli(["sync", "cpo", "locations", "--full"], file);
    // the scheduled pull of the serving gateway may hold the lock at that moment
    for (let attempt = 0; result.code !== 0 && result.stderr.includes("already running") && attempt < 10; attempt++) {
      await sleep(200);
      result = await runCli(["sync", "cpo", "locations", "--full"], file);
    }
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Pulled ${LOCATIONS} locations from cpo (full) in ${LOCATIONS / PAGE} pages, 0 rejected`);
    const wrong = await runCli(["sync", "cpo"], file);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("a partner id and a module are required");
  });

  it("rejects pulled objects that are invalid or owned by a party that is not the CPO's, and stores the rest", async () => {
    // a world of its own: the misbehaving CPO's two extra Locations would be pulled by the other tests too
    const own = await startWorld();
    const { logs, emsp } = own;
    const now = new Date().toISOString();
    const { address: _address, city: _city, ...broken } = location(1, "Broken", now);
    // A misbehaving CPO: one Location without its required address, one claiming to be the eMSP's own.
    await writeOnCpo(own, [{ ...broken, id: "BROKEN1" } as Location, { ...location(2, "Foreign", now), country_code: "DE", party_id: "EMS", id: "FOREIGN1" }]);
    const rejectionsBefore = logs.emsp.lines.filter((l) => l.msg === "pulled object rejected").length;
    const { body } = await adminSync(own, "cpo/locations?full=true");
    expect(body.data).toMatchObject({ objects: LOCATIONS, rejected: 2 });
    expectEachExactlyOnce(await emspLocations(emsp));
    expect((await emsp.store.range("local:locations:DEEMS", { offset: 0, limit: 10 })).total).toBe(0);
    const rejections = logs.emsp.lines.filter((l) => l.msg === "pulled object rejected").slice(rejectionsBefore, rejectionsBefore + 2);
    expect(rejections).toEqual([
      expect.objectContaining({ partner: "cpo", module: "locations", id: "BROKEN1", problems: expect.stringContaining("/address") }),
      expect.objectContaining({ id: "FOREIGN1", problems: "owned by a party that is not the partner's" }),
    ]);
  });

  it("refuses to start with a schedule for a module it cannot pull, and rejects a bad schedule or overlap in the config", async () => {
    const config: GatewayConfig = testGatewayConfig({ ...w.emspOptions, store: sqliteStore(), partners: [{ id: "cpo", sync: { tariffs: "*/5 * * * *" } }] });
    await expect(Gateway.create(config)).rejects.toThrow(/partners\[0\]\.sync\.tariffs: no tariffs RECEIVER/);
    const invalid = () => testGatewayConfig({ ...w.emspOptions, partners: [{ id: "cpo", sync: { locations: "every minute" }, sync_overlap_seconds: -5 }] });
    expect(invalid).toThrow(/partners\[0\]\.sync\.locations: must be a valid cron expression/);
    expect(invalid).toThrow(/partners\[0\]\.sync_overlap_seconds: must be a whole number of seconds between 0 and 86400/);
  });
});

describe("two eMSP instances on one Redis", () => {
  it("run each scheduled tick once, and never two pulls at a time", async () => {
    const { proxy, redisPairPorts } = await startWorld();
    const [portA, portB] = redisPairPorts;
    const store = redisStore();
    const logsOf = [new LogLines(), new LogLines()];
    const options = (port: number): GatewayConfigOptions => ({
      port,
      // Another partner of the CPO than the eMSP above: a party is registered by one partner only (partners[].roles).
      party: { ...EMSP, party_id: "EMR" },
      modules: { locations: { adapter: "local" } },
      store,
      partners: [
        { id: "cpo", token_a: TOKEN_A_REDIS, versions_url: `http://127.0.0.1:${proxy.port}/ocpi/versions`, sync: { locations: EVERY_SECOND }, sync_overlap_seconds: 5 },
      ],
    });
    for (const [i, port] of [portA, portB].entries()) {
      const instance = await Gateway.create(testGatewayConfig(options(port)), { logger: logsOf[i].logger("debug") });
      redisInstances.push(instance);
      await instance.listen();
    }
    const [a, b] = redisInstances;
    const since = Date.now();
    await a.credentials.register("cpo");
    expect(await registered(b, "cpo")).toBe(true);

    await waitFor("five ticks after the full pull", () => {
      const done = logsOf.flatMap((l) => l.completed(since));
      return done.some((l) => l.full) && done.filter((l) => !l.full).length >= 5;
    }, 30_000);
    const claims = logsOf.flatMap((l) => l.lines.filter((x) => x.msg === "sync tick claimed" && x.time >= since));
    const taken = logsOf.flatMap((l) => l.lines.filter((x) => x.msg === "sync tick taken by another instance" && x.time >= since));
    const pulls = logsOf.flatMap((l) => l.pulls(since));

    // each tick was claimed by one instance, the other one skipped it
    const claimedTicks = claims.map((c) => c.tick);
    expect(new Set(claimedTicks).size).toBe(claimedTicks.length);
    expect(taken.length).toBeGreaterThan(0);
    for (const t of taken) expect(claimedTicks).toContain(t.tick);
    // one pull per tick at most
    const pulledTicks = pulls.map((p) => p.tick);
    expect(new Set(pulledTicks).size).toBe(pulledTicks.length);
    // never two pulls at the same time, on whichever instance
    const spans = pulls.map((p) => [p.time - p.ms, p.time] as const).sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
    // the pulls share one store and one watermark: each asks from the previous completed pull's start (on either instance) minus the configured 5 s
    expectEachExactlyOnce(await emspLocations(a));
    expect(pulls.filter((p) => p.full)).toHaveLength(1);
    const completed = pulls.filter((p) => p.msg === "sync pull completed").sort((x, y) => x.time - y.time);
    expect(completed[0].full).toBe(true);
    for (let i = 1; i < completed.length; i++) {
      const previousStart = completed[i - 1].time - completed[i - 1].ms;
      expect(Math.abs(Date.parse(completed[i].dateFrom) - (previousStart - 5000))).toBeLessThanOrEqual(1500);
    }
  }, 60_000);
});
