import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { ModuleCatalog } from "../../core/modules/module-catalog";
import { ResponseCache } from "../../core/cache/response-cache";
import type { PartyRef } from "../../core/protocol/types";
import { SyncStates } from "../../core/sync/sync-state";
import type { Location } from "../../plugins/locations/model";
import type { LocationsReceiverPort } from "../../plugins/locations/ports";
import type { Session } from "../../plugins/sessions/model";
import { sqliteStore, tempDir, testGatewayConfig, type GatewayConfigOptions, type PartySpec } from "./gateway-config";
import { freePorts, ocpiRequest } from "./gateway-process";
import { closeServer, listenOnLoopback } from "./loopback-server";

/**
 * The set-up of test/e2e/sync.test.ts: a CPO gateway with 1,000 Locations
 * behind a loopback proxy that records and can cut its requests, and an
 * eMSP gateway registered with it that pulls them on a cron schedule.
 */

export type Json = Record<string, any>;

export const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
export const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
export const CPO_REF: PartyRef = { country_code: "NL", party_id: "CPO" };
export const TOKEN_A = "sync-e2e-token-A-0123456789";
export const TOKEN_A_REDIS = "sync-e2e-token-A-redis-0123456789";
export const ADMIN_TOKEN = "sync-e2e-admin-token-0123456789";
export const LOCATIONS = 1000;
export const PAGE = 100;
export const EVERY_SECOND = "* * * * * *";

/* ---------------------------------------------------------------- data */

export const idOf = (n: number): string => `LOC${String(n).padStart(4, "0")}`;

export const location = (n: number, name: string, lastUpdated: string): Location => ({
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

export const seededLocation = (n: number): Location =>
  location(n, `Station ${n}`, new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"));

export const session: Session = {
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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const waitFor = async <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
};

/** A gateway's log lines, parsed. */
export class LogLines {
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
export class CpoProxy {
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

export const registered = async (gateway: Gateway, partnerId: string) => (await gateway.registry.get(partnerId))?.status === "registered";

/* ---------------------------------------------------------------- set-up */

/**
 * A CPO (its 1,000 Locations and a session seeded) behind its proxy, and an
 * eMSP registered with it that pulls its Locations every second. Each test
 * that changes the CPO's data or follows the eMSP's pulls from the first one
 * starts a world of its own; the on-demand tests share one.
 */
export interface World {
  cpo: Gateway;
  emsp: Gateway;
  proxy: CpoProxy;
  emspUrl: string;
  emspOptions: GatewayConfigOptions;
  logs: { cpo: LogLines; emsp: LogLines };
  /** ports of the Redis pair: known to the CPO's config, whose callback_hosts must name the pair's registration address */
  redisPairPorts: number[];
}

const worlds: World[] = [];

export const startWorld = async (): Promise<World> => {
  const [cpoPort, proxyPort, emspPort, ...pair] = await freePorts(5);
  const emspUrl = `http://127.0.0.1:${emspPort}`;
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
  const emspOptions: GatewayConfigOptions = {
    port: emspPort,
    party: EMSP,
    modules,
    store: sqliteStore(),
    server: { admin_token: ADMIN_TOKEN },
    partners: [{ id: "cpo", token_a: TOKEN_A, versions_url: `http://127.0.0.1:${proxyPort}/ocpi/versions`, sync: { locations: EVERY_SECOND } }],
  };
  const logs = { cpo: new LogLines(), emsp: new LogLines() };
  const proxy = new CpoProxy(proxyPort, cpoPort);
  await proxy.listen();
  const cpo = await Gateway.create(cpoConfig, { logger: logs.cpo.logger("warn") });
  const emsp = await Gateway.create(testGatewayConfig(emspOptions), { logger: logs.emsp.logger("info") });
  const world: World = { cpo, emsp, proxy, emspUrl, emspOptions, logs, redisPairPorts: pair };
  worlds.push(world);
  await cpo.listen();
  await emsp.listen();
  await emsp.credentials.register("cpo");
  return world;
};

/** Closes every world started, the eMSPs first (they pull from the CPOs). */
export const closeWorlds = async (): Promise<void> => {
  const started = worlds.splice(0);
  await Promise.all(started.map((w) => w.emsp.close()));
  for (const w of started) {
    await w.cpo.close();
    await w.proxy.close();
  }
};

/**
 * Writes the CPO's own Locations into its `local` adapter (which keeps a
 * party's Locations in one collection), as a backend feeding it would, and
 * drops the CPO's cached list pages as such a backend must. Not through the
 * change feed: that would push the change to the eMSP, and the pull is what is tested.
 */
export const writeOnCpo = async ({ cpo }: World, locations: Location[]): Promise<void> => {
  const port = cpo.container.resolve(ModuleCatalog).served.find((s) => s.plugin.module === "locations" && s.role === "RECEIVER")!.port as LocationsReceiverPort;
  for (const l of locations) await port.put(CPO_REF, l, { party: CPO_REF });
  await cpo.container.resolve(ResponseCache).invalidate("locations", CPO_REF);
};

export const changeOnCpo = (w: World, numbers: number[], name: (n: number) => string): Promise<void> => {
  const now = new Date().toISOString();
  return writeOnCpo(w, numbers.map((n) => location(n, name(n), now)));
};

/** Every Location the eMSP holds for the CPO, read page by page from its store (the `local` adapter's collection). */
export const emspLocations = async (gateway: Gateway): Promise<Location[]> => {
  const all: Location[] = [];
  for (let offset = 0; ; offset += 250) {
    const page = await gateway.store.range<Location>("local:locations:NLCPO", { offset, limit: 250 });
    all.push(...page.items);
    if (page.items.length < 250) return all;
  }
};

export const expectEachExactlyOnce = (held: Location[]): void => {
  const ids = held.map((l) => l.id).sort();
  expect(ids).toHaveLength(LOCATIONS);
  expect(new Set(ids).size).toBe(LOCATIONS);
  expect(ids).toEqual(Array.from({ length: LOCATIONS }, (_, n) => idOf(n)));
};

/** The eMSP's receiver GET of one of the CPO's Locations, authenticated as the CPO. */
export const emspReceiverGet = async ({ cpo, emspUrl }: World, id: string): Promise<Json> => {
  const token = (await cpo.registry.get("emsp"))!.tokenToPartner!;
  const response = await ocpiRequest("GET", `${emspUrl}/ocpi/2.3.0/receiver/locations/NL/CPO/${id}`, {
    token,
    headers: { "OCPI-from-country-code": "NL", "OCPI-from-party-id": "CPO", "OCPI-to-country-code": "DE", "OCPI-to-party-id": "EMS" },
  });
  expect(response.status).toBe(200);
  return response.body.data;
};

export const watermarkOf = async (gateway: Gateway, partnerId: string): Promise<number | undefined> =>
  (await new SyncStates(gateway.store).get(partnerId, "locations")).watermark;

/** A pull on demand may meet the scheduled one holding the lock (HTTP 409): it is asked again. */
export const adminSync = async ({ emspUrl }: World, pathAndQuery: string): Promise<{ status: number; body: Json }> => {
  for (let attempt = 0; ; attempt++) {
    const response = await ocpiRequest("POST", `${emspUrl}/admin/v1/sync/${pathAndQuery}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (response.status !== 409 || attempt === 20) return { status: response.status, body: response.body };
    await sleep(100);
  }
};

/** The world's first completed pull: the full one of the first tick after registration. */
export const firstPull = (w: World): Promise<Json> =>
  waitFor("the first completed pull", () => (w.logs.emsp.completed().length ? w.logs.emsp.completed()[0] : undefined));

/** Changes five of the CPO's Locations and waits for the incremental pull that saw them. */
export const renameFive = async (w: World): Promise<{ pull: Json; changedAt: number }> => {
  await changeOnCpo(w, [3, 14, 15, 92, 265], (n) => `Renamed ${n}`);
  const changedAt = Date.now();
  const pull = await waitFor("an incremental pull that saw the change", () => w.logs.emsp.completed(changedAt).find((l) => l.objects > 0));
  return { pull, changedAt };
};

