import "reflect-metadata";
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { Gateway } from "../../app/gateway";
import { captureLogs } from "../support/log-capture";
import { removeTempDirs, tempDir, testGatewayConfig } from "../support/gateway-config";
import { freePorts, ocpiRequest, type HttpResult } from "../support/gateway-process";
import { LoopbackPartner } from "../support/loopback-server";
import { numberedStation, sessionAt, t2Connector } from "../support/ocpi-objects";
import { locationType } from "../../plugins/locations/translate";

/**
 * Issue #25, 2.1.1 Sessions carry a skeleton Location: a CPO gateway
 * (in-process, SQLite, `local` adapter) whose Locations hold LOC1 pushes its
 * sessions to an eMSP speaking OCPI 2.1.1, written here with node:http. Like
 * the partner of the issue, the eMSP checks the Location a 2.1.1 Session
 * embeds (OCPI 2.1.1 Sessions module: a Location with only the EVSE and
 * connector used) and answers HTTP 422 when it is not a valid 2.1.1
 * Location. It registers through the real 2.1.1 credentials exchange, and
 * pulls our 2.1.1 Sessions list as well.
 */

type Json = Record<string, any>;

const ADMIN_TOKEN = "session-location-admin-token-0123456789";
const TOKEN_A = "session-location-token-a-0123456789";
/** the token the eMSP gives us in its credentials */
const PARTNER_TOKEN = "session-location-partner-token-5e4d3c2b1a";
const OWNER = { country_code: "NL", party_id: "CPO" };
const STAMP = "2025-01-01T00:00:00Z";

/** Our LOC1 (EVSEs LOC1-E1 with connectors 1 and 2, LOC1-E2), where sessionAt's sessions charge: LOC1-E1, connector 1. */
const LOC1 = {
  ...OWNER,
  id: "LOC1",
  publish: true,
  ...numberedStation(1),
  time_zone: "Europe/Amsterdam",
  evses: ["LOC1-E1", "LOC1-E2"].map((uid, i) => ({
    uid,
    status: "AVAILABLE",
    connectors: i === 0 ? [t2Connector("1", STAMP), t2Connector("2", STAMP)] : [t2Connector("1", STAMP)],
    last_updated: STAMP,
  })),
  last_updated: STAMP,
};

interface Received {
  method: string;
  path: string;
  body: Json;
  status: number;
}

/** A 2.1.1 eMSP: versions, version details and a Sessions endpoint that takes only Sessions whose Location is a valid 2.1.1 Location. */
class Emsp211 extends LoopbackPartner {
  readonly received: Received[] = [];

  /** what it took (HTTP 200) or refused (422) of session `id` */
  sessions(id: string, status?: number): Received[] {
    return this.received.filter((r) => r.path.endsWith(`/sessions/NL/CPO/${id}`) && (status === undefined || r.status === status));
  }

  protected answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const url = req.url ?? "";
    const ok = (data?: unknown) => [200, { status_code: 1000, data, timestamp: new Date().toISOString() }] as const;
    let [status, body]: readonly [number, unknown] = ok();
    if (url === "/versions") [status, body] = ok([{ version: "2.1.1", url: `${this.base}/2.1.1` }]);
    else if (url === "/2.1.1")
      [status, body] = ok({
        version: "2.1.1",
        endpoints: ["credentials", "sessions"].map((identifier) => ({ identifier, url: `${this.base}/2.1.1/${identifier}` })),
      });
    else {
      const pushed = (text ? JSON.parse(text) : {}) as Json;
      // as a framework validating the 2.1.1 Location schema answers (the issue's partner: 422, location.type required)
      const issues = pushed.location === undefined ? [] : (locationType.schema("2.1.1", "full").safeParse(pushed.location).error?.issues ?? []);
      if (issues.length) [status, body] = [422, { detail: issues.map((i) => ({ loc: ["body", "location", ...i.path], msg: i.message })) }];
      this.received.push({ method: req.method ?? "", path: url, body: pushed, status });
    }
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify(body));
  }
}

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const logs = captureLogs("info");
let emsp: Emsp211;
let cpo: Gateway;
let cpoUrl: string;
/** the token the CPO gave the eMSP: how it calls the CPO */
let tokenToCpo: string;

const admin = (method: string, route: string, body?: unknown): Promise<HttpResult> =>
  ocpiRequest(method, `${cpoUrl}/admin/v1${route}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body });

const pushSession = async (object: Json): Promise<void> => {
  const result = await admin("POST", "/events", { module: "sessions", owner: OWNER, path: [object.id], kind: "upsert", object });
  if (result.body?.status_code !== 1000) throw new Error(`event refused: HTTP ${result.status} ${result.text}`);
};

beforeAll(async () => {
  emsp = new Emsp211();
  await emsp.start();
  const [port] = await freePorts(1);
  cpoUrl = `http://127.0.0.1:${port}`;
  const seed = path.join(tempDir("ocpi-session-location-"), "seed.json");
  fs.writeFileSync(seed, JSON.stringify({ locations: [LOC1] }));
  const config = testGatewayConfig({
    port,
    party: { ...OWNER, role: "CPO" },
    modules: { locations: { adapter: "local" }, sessions: { adapter: "local" } },
    adapters: { local: { seed } },
    server: { admin_token: ADMIN_TOKEN },
    // the eMSP is on loopback, which only a host named in config may be
    partners: [{ id: "emsp", token_a: TOKEN_A, callback_hosts: [new URL(emsp.base).host], push: { base_delay_ms: 50, max_delay_ms: 200 } }],
  });
  cpo = await Gateway.create(config, { logger: logs.logger });
  await cpo.listen();
  const registration = await ocpiRequest("POST", `${cpoUrl}/ocpi/2.1.1/credentials`, {
    token: TOKEN_A,
    encoding: "raw",
    body: { token: PARTNER_TOKEN, url: `${emsp.base}/versions`, business_details: { name: "EMS" }, party_id: "EMS", country_code: "DE" },
  });
  expect(registration.body).toMatchObject({ status_code: 1000 });
  tokenToCpo = registration.body.data.token;
  logs.watch(TOKEN_A, PARTNER_TOKEN, ADMIN_TOKEN, tokenToCpo);
  // S1 charges at LOC1-E1, connector 1: a Location our Locations have
  await pushSession(sessionAt("S1", "ACTIVE", 10));
}, 30_000);

afterAll(async () => {
  await cpo?.close();
  await emsp?.close();
  removeTempDirs();
  expect(logs.leaks()).toEqual([]);
});

/** The 2.1.1 Location a Session at LOC1-E1, connector 1 embeds: LOC1 with that EVSE and connector only. */
const expectLoc1ForE1 = (location: Json) => {
  expect(locationType.schema("2.1.1", "full").safeParse(location).error?.issues ?? []).toEqual([]);
  expect(location).toMatchObject({
    id: "LOC1",
    type: "UNKNOWN",
    name: "Station 1",
    address: "Main street 1",
    city: "Utrecht",
    postal_code: "3511 AA",
    country: "NLD",
    coordinates: { latitude: "52.090730", longitude: "5.121420" },
  });
  expect(location.evses).toHaveLength(1);
  expect(location.evses[0]).toMatchObject({ uid: "LOC1-E1", status: "AVAILABLE" });
  expect(location.evses[0].connectors).toEqual([
    { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", voltage: 230, amperage: 32, last_updated: STAMP },
  ]);
};

it("a pushed Session embeds the whole Location from our Locations, which the 2.1.1 eMSP takes", async () => {
  expect(await cpo.registry.get("emsp")).toMatchObject({ version: "2.1.1" });
  await until("the eMSP answered the push of S1", () => emsp.sessions("S1").length > 0);
  const [put] = emsp.sessions("S1");
  expect(put).toMatchObject({ method: "PUT", status: 200 });
  expectLoc1ForE1(put.body.location);
  expect(put.body).not.toHaveProperty("location_id");
});

it("a GET of our 2.1.1 Sessions list embeds it too", async () => {
  const details = await ocpiRequest("GET", `${cpoUrl}/ocpi/2.1.1`, { token: tokenToCpo, encoding: "raw" });
  const sessionsUrl = (details.body.data.endpoints as Json[]).find((e) => e.identifier === "sessions")!.url;
  const page = await ocpiRequest("GET", `${sessionsUrl}?date_from=2025-01-01T00:00:00Z`, { token: tokenToCpo, encoding: "raw" });
  expect(page.body.status_code).toBe(1000);
  const s1 = (page.body.data as Json[]).find((s) => s.id === "S1")!;
  expectLoc1ForE1(s1.location);
});

it("a Session at a Location our Locations lack goes with its ids only (logged); the eMSP refuses it, a final one is dead-lettered", async () => {
  const elsewhere = { ...sessionAt("S2", "COMPLETED", 20), location_id: "LOC9", evse_uid: "LOC9-E1" };
  await pushSession(elsewhere);
  await until("S2 was dead-lettered", async () => {
    const letters = await admin("GET", "/outbox/emsp/dead-letters");
    return (letters.body.data?.dead_letters ?? []).some((l: Json) => l.label.includes("S2"));
  });
  expect(emsp.sessions("S2", 422)[0].body.location).toEqual({ id: "LOC9", evses: [{ uid: "LOC9-E1", connectors: [{ id: "1" }] }] });
  const warned = logs.lines.map((l) => JSON.parse(l) as Json).filter((l) => String(l.msg).startsWith("our Locations have no Location"));
  expect(warned).toEqual([expect.objectContaining({ place: "NL/CPO/LOC9/LOC9-E1/1" })]);
});
