import "reflect-metadata";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import type { GatewayConfig } from "../../config/types";
import { ModuleCatalog } from "../../core/host/module-catalog";
import { ResponseCache } from "../../core/cache/response-cache";
import type { PartyRef } from "../../core/protocol/types";
import { SyncStates } from "../../core/sync/sync-state";
import type { Location } from "../../plugins/locations/model";
import type { LocationsReceiverPort } from "../../plugins/locations/ports";
import type { Session } from "../../plugins/sessions/model";
import { gatewayConfigYaml, redisStore, removeTempDirs, sqliteStore, tempDir, testGatewayConfig, type GatewayConfigOptions, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, runCli } from "../support/gateway-process";
import { closeServer, listenOnLoopback } from "../support/loopback-server";

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

type Json = Record<string, any>;

const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
const CPO_REF: PartyRef = { country_code: "NL", party_id: "CPO" };
const TOKEN_A = "sync-e2e-token-A-0123456789";
const TOKEN_A_REDIS = "sync-e2e-token-A-redis-0123456789";
const ADMIN_TOKEN = "sync-e2e-admin-token-0123456789";
const LOCATIONS = 1000;
const PAGE = 100;
const EVERY_SECOND = "* * * * * *";

/* ---------------------------------------------------------------- data */

const idOf = (n: number): string => `LOC${String(n).padStart(4, "0")}`;

const location = (n: number, name: string, lastUpdated: string): Location => ({
  country_code: "NL",
  party_id: "CPO",
  id: idOf(n),
  publish: true,
  name,
  address: `Main street ${n}`,
  city: "Utrecht",
  postal_code: "3511 AA",
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  evses: [
    {
      uid: `EVSE${n}`,
      evse_id: `NL*CPO*E${n}`,
      status: "AVAILABLE",
      connectors: [
        { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: lastUpdated },
      ],
      last_updated: lastUpdated,
    },
  ],
  time_zone: "Europe/Amsterdam",
  last_updated: lastUpdated,
});

const seededLocation = (n: number): Location =>
  location(n, `Station ${n}`, new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"));

const session: Session = {
  country_code: "NL",
  party_id: "CPO",
  id: "SES-0001",
  start_date_time: "2024-05-01T10:00:00Z",
  kwh: 0,
  cdr_token: { country_code: "DE", party_id: "EMS", uid: "A1B2C3D4", type: "RFID", contract_id: "DE-EMS-CA1B2C3D4" },
  auth_method: "WHITELIST",
  location_id: idOf(1),
  evse_uid: "EVSE1",
  connector_id: "1",
  currency: "EUR",
  status: "ACTIVE",
  last_updated: "2024-05-01T10:00:05Z",
};

/* ---------------------------------------------------------------- helpers */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const waitFor = async <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
};

/** A gateway's log lines, parsed. */
class LogLines {
  readonly lines: Json[] = [];
  logger(level: string) {
    return pino({ level }, { write: (line: string) => void this.lines.push(JSON.parse(line)) });
  }
  /** pulls that ended (completed or failed) and started at or after `since` (epoch ms) */
  pulls(since = 0): Json[] {
    return this.lines.filter((l) => (l.msg === "sync pull completed" || l.msg.startsWith("sync pull failed")) && l.time - l.ms >= since);
  }
  completed(since = 0): Json[] {
    return this.pulls(since).filter((l) => l.msg === "sync pull completed");
  }
  failed(since = 0): Json[] {
    return this.pulls(since).filter((l) => l.msg !== "sync pull completed");
  }
}

/**
 * The CPO as the eMSP sees it: a loopback proxy in front of the CPO gateway.
 * `cut` decides which requests get their connection destroyed instead of an answer.
 */
class CpoProxy {
  readonly requests: URL[] = [];
  cut: (url: URL) => boolean = () => false;
  private readonly server: http.Server;

  constructor(
    readonly port: number,
    target: number,
  ) {
    this.server = http.createServer((req, res) => {
      const url = new URL(req.url!, `http://127.0.0.1:${port}`);
      this.requests.push(url);
      if (this.cut(url)) {
        req.socket.destroy();
        return;
      }
      const upstream = http.request({ host: "127.0.0.1", port: target, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    });
  }

  listen(): Promise<void> {
    return listenOnLoopback(this.server, this.port);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  /** the CPO's locations list requests since `index` */
  listRequests(module: string, since = 0): URL[] {
    return this.requests.slice(since).filter((u) => u.pathname.endsWith(`/sender/${module}`));
  }
}

const registered = async (gateway: Gateway, partnerId: string) => (await gateway.registry.get(partnerId))?.status === "registered";

/* ---------------------------------------------------------------- set-up */

let cpo: Gateway;
let emsp: Gateway;
let proxy: CpoProxy;
let emspUrl: string;
let emspOptions: GatewayConfigOptions;
const logs = { cpo: new LogLines(), emsp: new LogLines() };
const redisInstances: Gateway[] = [];
/** ports of the Redis pair: known to the CPO's config, whose callback_hosts must name the pair's registration address */
let redisPairPorts: number[];

/**
 * Writes the CPO's own Locations into its `local` adapter (which keeps a
 * party's Locations in one collection), as a backend feeding it would, and
 * drops the CPO's cached list pages as such a backend must. Not through the
 * change feed: that would push the change to the eMSP, and the pull is what is tested.
 */
const writeOnCpo = async (locations: Location[]): Promise<void> => {
  const port = cpo.container.resolve(ModuleCatalog).served.find((s) => s.plugin.module === "locations" && s.role === "RECEIVER")!.port as LocationsReceiverPort;
  for (const l of locations) await port.put(CPO_REF, l, { party: CPO_REF });
  await cpo.container.resolve(ResponseCache).invalidate("locations", CPO_REF);
};

const changeOnCpo = (numbers: number[], name: (n: number) => string): Promise<void> => {
  const now = new Date().toISOString();
  return writeOnCpo(numbers.map((n) => location(n, name(n), now)));
};

/** Every Location the eMSP holds for the CPO, read page by page from its store (the `local` adapter's collection). */
const emspLocations = async (gateway: Gateway = emsp): Promise<Location[]> => {
  const all: Location[] = [];
  for (let offset = 0; ; offset += 250) {
    const page = await gateway.store.range<Location>("local:locations:NLCPO", { offset, limit: 250 });
    all.push(...page.items);
    if (page.items.length < 250) return all;
  }
};

const expectEachExactlyOnce = (held: Location[]): void => {
  const ids = held.map((l) => l.id).sort();
  expect(ids).toHaveLength(LOCATIONS);
  expect(new Set(ids).size).toBe(LOCATIONS);
  expect(ids).toEqual(Array.from({ length: LOCATIONS }, (_, n) => idOf(n)));
};

/** The eMSP's receiver GET of one of the CPO's Locations, authenticated as the CPO. */
const emspReceiverGet = async (id: string): Promise<Json> => {
  const token = (await cpo.registry.get("emsp"))!.tokenToPartner!;
  const response = await ocpiRequest("GET", `${emspUrl}/ocpi/2.3.0/receiver/locations/NL/CPO/${id}`, {
    token,
    headers: { "OCPI-from-country-code": "NL", "OCPI-from-party-id": "CPO", "OCPI-to-country-code": "DE", "OCPI-to-party-id": "EMS" },
  });
  expect(response.status).toBe(200);
  return response.body.data;
};

const watermarkOf = async (gateway: Gateway, partnerId: string): Promise<number | undefined> =>
  (await new SyncStates(gateway.store).get(partnerId, "locations")).watermark;

/** A pull on demand may meet the scheduled one holding the lock (HTTP 409): it is asked again. */
const adminSync = async (pathAndQuery: string): Promise<{ status: number; body: Json }> => {
  for (let attempt = 0; ; attempt++) {
    const response = await ocpiRequest("POST", `${emspUrl}/admin/v1/sync/${pathAndQuery}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (response.status !== 409 || attempt === 20) return { status: response.status, body: response.body };
    await sleep(100);
  }
};

beforeAll(async () => {
  const [cpoPort, proxyPort, emspPort, ...pair] = await freePorts(5);
  redisPairPorts = pair;
  emspUrl = `http://127.0.0.1:${emspPort}`;
  const seed = path.join(tempDir("ocpi-sync-seed-"), "cpo.json");
  fs.writeFileSync(seed, JSON.stringify({ locations: Array.from({ length: LOCATIONS }, (_, n) => seededLocation(n)), sessions: [session] }));
  const modules = { locations: { adapter: "local" }, sessions: { adapter: "local" } };
  const cpoConfig = testGatewayConfig({
    port: cpoPort,
    party: CPO,
    modules,
    adapters: { local: { seed } },
    server: { public_url: `http://127.0.0.1:${proxyPort}`, max_page_limit: PAGE },
    partners: [
      { id: "emsp", token_a: TOKEN_A, versions_url: `${emspUrl}/ocpi/versions` },
      // the Redis pair of the last test registers as a partner of its own
      { id: "emsp-redis", token_a: TOKEN_A_REDIS, callback_hosts: pair.map((p) => `127.0.0.1:${p}`) },
    ],
  });
  emspOptions = {
    port: emspPort,
    party: EMSP,
    modules,
    store: sqliteStore(),
    server: { admin_token: ADMIN_TOKEN },
    partners: [{ id: "cpo", token_a: TOKEN_A, versions_url: `http://127.0.0.1:${proxyPort}/ocpi/versions`, sync: { locations: EVERY_SECOND } }],
  };
  proxy = new CpoProxy(proxyPort, cpoPort);
  await proxy.listen();
  cpo = await Gateway.create(cpoConfig, { logger: logs.cpo.logger("warn") });
  emsp = await Gateway.create(testGatewayConfig(emspOptions), { logger: logs.emsp.logger("info") });
  await cpo.listen();
  await emsp.listen();
  await emsp.credentials.register("cpo");
});

afterAll(async () => {
  await Promise.all([emsp?.close(), ...redisInstances.map((g) => g.close())]);
  await cpo?.close();
  await proxy?.close();
  removeTempDirs();
});

/* ---------------------------------------------------------------- tests */

describe("cron sync pulls between a CPO and an eMSP gateway", () => {
  it("pulls all 1,000 Locations on the first tick after registration: a full pull, page by page", async () => {
    const [pull] = await waitFor("the first completed pull", () => (logs.emsp.completed().length ? logs.emsp.completed() : undefined));
    expect(pull).toMatchObject({ partner: "cpo", module: "locations", trigger: "schedule", full: true, objects: LOCATIONS, pages: LOCATIONS / PAGE, rejected: 0 });
    expect(pull.tick).toEqual(expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/));
    // a full pull of locations asks without date_from and follows the Link headers through every page
    const requests = proxy.listRequests("locations");
    expect(requests[0].searchParams.has("date_from")).toBe(false);
    expect(requests.slice(0, LOCATIONS / PAGE).map((u) => Number(u.searchParams.get("offset") ?? 0))).toEqual(
      Array.from({ length: LOCATIONS / PAGE }, (_, i) => i * PAGE),
    );
    expectEachExactlyOnce(await emspLocations());
    expect(await emspReceiverGet(idOf(417))).toEqual(seededLocation(417));
    // no secret in any log line
    const text = JSON.stringify(logs.emsp.lines) + JSON.stringify(logs.cpo.lines);
    for (const secret of [TOKEN_A, ADMIN_TOKEN, (await emsp.registry.get("cpo"))!.tokenToPartner!]) expect(text).not.toContain(secret);
  });

  it("then pulls only the Locations that changed, from the watermark minus the overlap", async () => {
    await changeOnCpo([3, 14, 15, 92, 265], (n) => `Renamed ${n}`);
    const changedAt = Date.now();
    const requestsBefore = proxy.requests.length;
    const pull = await waitFor("an incremental pull that saw the change", () => logs.emsp.completed(changedAt).find((l) => l.objects > 0));
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
    for (const n of [3, 265]) expect(await emspReceiverGet(idOf(n))).toMatchObject({ name: `Renamed ${n}` });
    expect(await emspReceiverGet(idOf(4))).toMatchObject({ name: "Station 4" });
    expectEachExactlyOnce(await emspLocations());
  });

  it("keeps the watermark when the CPO fails mid-pull, and the next pull resumes without loss or duplicates", async () => {
    const changed = Array.from({ length: 300 }, (_, i) => 500 + i);
    // The CPO's connection drops on the second page of every list from now on.
    proxy.cut = (url) => url.pathname.endsWith("/sender/locations") && Number(url.searchParams.get("offset") ?? 0) >= PAGE;
    await changeOnCpo(changed, (n) => `Round two ${n}`);
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
    const halfway = (await emspLocations()).filter((l) => l.name?.startsWith("Round two"));
    expect(halfway.length).toBeGreaterThan(0);
    expect(halfway.length).toBeLessThan(changed.length);

    proxy.cut = () => false;
    const healedAt = Date.now();
    const resumed = await waitFor("a pull after the CPO recovered", () => logs.emsp.completed(healedAt)[0]);
    // from the old watermark: the 5 earlier changes are still within the overlap window, and every one of the 300
    expect(resumed).toMatchObject({ full: false, objects: 305, pages: 4 });
    expect(await watermarkOf(emsp, "cpo")).toBeGreaterThan(watermarkBefore!);
    const held = await emspLocations();
    expectEachExactlyOnce(held);
    const byId = new Map(held.map((l) => [l.id, l]));
    for (const n of changed) expect(byId.get(idOf(n))!.name).toBe(`Round two ${n}`);
    expect(byId.get(idOf(499))!.name).toBe("Station 499");
    expect(await emspReceiverGet(idOf(799))).toMatchObject({ name: "Round two 799" });
  });
});

describe("sync pulls on demand", () => {
  it("runs a full pull from the admin API and answers its counts", async () => {
    const { status, body } = await adminSync("cpo/locations?full=true");
    expect(status).toBe(200);
    expect(body).toMatchObject({ status_code: 1000, data: { partner: "cpo", module: "locations", full: true, objects: LOCATIONS, pages: LOCATIONS / PAGE, rejected: 0 } });
    expect(body.data.date_from).toBeUndefined();
    expect(body.data.duration_ms).toEqual(expect.any(Number));
    expectEachExactlyOnce(await emspLocations());
  });

  it("asks a sessions list from the epoch on a first pull, as sessions require date_from", async () => {
    const before = proxy.requests.length;
    const { body } = await adminSync("cpo/sessions");
    expect(body).toMatchObject({ status_code: 1000, data: { module: "sessions", full: true, objects: 1, date_from: "1970-01-01T00:00:00Z" } });
    expect(proxy.listRequests("sessions", before)[0].searchParams.get("date_from")).toBe("1970-01-01T00:00:00Z");
    const stored = await emsp.store.get<Session>("local:sessions:NLCPO", "SES-0001");
    expect(stored).toEqual(session);
    // the second pull is incremental
    const again = await adminSync("cpo/sessions");
    expect(again.body.data).toMatchObject({ full: false, objects: 0 });
    expect(Date.parse(again.body.data.date_from)).toBeGreaterThan(Date.now() - 70_000);
  });

  it("answers 2001 naming what is wrong, 401 without the admin token, and 502 when the partner fails", async () => {
    const tariffs = await adminSync("cpo/tariffs");
    expect(tariffs.body.status_code).toBe(2001);
    expect(tariffs.body.status_message).toContain("module: tariffs cannot be pulled");
    const unknown = await adminSync("nobody/locations");
    expect(unknown.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("partner: nobody") });
    const flag = await adminSync("cpo/locations?full=yes");
    expect(flag.body).toMatchObject({ status_code: 2001, status_message: expect.stringContaining("full") });
    const anonymous = await ocpiRequest("POST", `${emspUrl}/admin/v1/sync/cpo/locations`);
    expect(anonymous.status).toBe(401);

    proxy.cut = (url) => url.pathname.endsWith("/sender/sessions");
    try {
      const failed = await adminSync("cpo/sessions?full=true");
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ status_code: 3001, status_message: expect.stringContaining("The pull failed") });
    } finally {
      proxy.cut = () => false;
    }
  });

  it("runs a pull from the CLI beside the serving gateway (same SQLite file)", async () => {
    const file = path.join(tempDir("ocpi-sync-cli-"), "gateway.config.yaml");
    fs.writeFileSync(file, gatewayConfigYaml(emspOptions));
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
    const now = new Date().toISOString();
    const { address: _address, city: _city, ...broken } = location(1, "Broken", now);
    // A misbehaving CPO: one Location without its required address, one claiming to be the eMSP's own.
    await writeOnCpo([{ ...broken, id: "BROKEN1" } as Location, { ...location(2, "Foreign", now), country_code: "DE", party_id: "EMS", id: "FOREIGN1" }]);
    const rejectionsBefore = logs.emsp.lines.filter((l) => l.msg === "pulled object rejected").length;
    const { body } = await adminSync("cpo/locations?full=true");
    expect(body.data).toMatchObject({ objects: LOCATIONS, rejected: 2 });
    expectEachExactlyOnce(await emspLocations());
    expect((await emsp.store.range("local:locations:DEEMS", { offset: 0, limit: 10 })).total).toBe(0);
    const rejections = logs.emsp.lines.filter((l) => l.msg === "pulled object rejected").slice(rejectionsBefore, rejectionsBefore + 2);
    expect(rejections).toEqual([
      expect.objectContaining({ partner: "cpo", module: "locations", id: "BROKEN1", problems: expect.stringContaining("/address") }),
      expect.objectContaining({ id: "FOREIGN1", problems: "owned by a party that is not the partner's" }),
    ]);
  });

  it("refuses to start with a schedule for a module it cannot pull, and rejects a bad schedule or overlap in the config", async () => {
    const config: GatewayConfig = testGatewayConfig({ ...emspOptions, store: sqliteStore(), partners: [{ id: "cpo", sync: { tariffs: "*/5 * * * *" } }] });
    await expect(Gateway.create(config)).rejects.toThrow(/partners\[0\]\.sync\.tariffs: no tariffs RECEIVER/);
    const invalid = () => testGatewayConfig({ ...emspOptions, partners: [{ id: "cpo", sync: { locations: "every minute" }, sync_overlap_seconds: -5 }] });
    expect(invalid).toThrow(/partners\[0\]\.sync\.locations: must be a valid cron expression/);
    expect(invalid).toThrow(/partners\[0\]\.sync_overlap_seconds: must be a whole number of seconds between 0 and 86400/);
  });
});

describe("two eMSP instances on one Redis", () => {
  it("run each scheduled tick once, and never two pulls at a time", async () => {
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
