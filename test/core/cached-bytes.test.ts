import "reflect-metadata";
import http from "node:http";
import pino from "pino";
import request from "supertest";
import { stringify } from "yaml";
import { Gateway } from "../../app/gateway";
import { parseConfig } from "../../config/load-config";
import { ChangeFeed } from "../../core/contract/change-feed";
import { SyncPuller } from "../../core/sync/sync-puller";
import { CredentialsPlugin } from "../../plugins/credentials/module";
import { LocationsPlugin } from "../../plugins/locations/module";
import { gatewayConfigData, removeTempDirs } from "../support/gateway-config";
import { LocationsBackend, logLines, testLocation, type TestPartner } from "../support/counting-locations";
import { closeServer, listenOnLoopback } from "../support/loopback-server";

/**
 * Issue #11: a cached page is served from its serialised bytes, kept per
 * version with the cached entry. The bytes must be exactly what translating
 * and serialising the entry gives, and go exactly when the entry goes: after
 * a change on the feed, a receiver write and a sync pull; partners in
 * different versions each get their own.
 */

const LIST = "/ocpi/2.3.0/sender/locations";
const OURS = { country_code: "NL", party_id: "GWY" };
const partnerOf = (id: string, version: TestPartner["version"], cc: string, pid: string, role: "EMSP" | "CPO" = "EMSP"): TestPartner => ({
  id,
  version,
  role: { country_code: cc, party_id: pid, role, business_details: { name: `${cc}${pid}` } },
});
const EMSP_230 = partnerOf("emsp230", "2.3.0", "DE", "EMS");
const EMSP_211 = partnerOf("emsp211", "2.1.1", "BE", "OLD");
const EMSP_230B = partnerOf("emsp230b", "2.3.0", "FR", "EMB");
const CPO_PEER = partnerOf("cpo", "2.3.0", "DE", "CPX", "CPO");

type Json = Record<string, any>;
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  removeTempDirs();
});

const seeded = (count: number): LocationsBackend => {
  const backend = new LocationsBackend();
  for (let n = 1; n <= count; n++) backend.store(testLocation(n));
  return backend;
};

/** A gateway on the counting backend; `peerUrl`: the CPO peer's locations endpoint, for sync pulls. */
const start = async (backend: LocationsBackend, peerUrl?: string) => {
  const partners = [EMSP_230, EMSP_211, EMSP_230B, CPO_PEER];
  const data = gatewayConfigData({
    port: 9,
    modules: { locations: { adapter: "counting" } },
    adapters: { counting: {} },
    partners: partners.map((p) => ({ id: p.id, versions: [p.version], ...(p === CPO_PEER && peerUrl ? { versions_url: `${new URL(peerUrl).origin}/versions` } : {}) })),
    server: { log_level: "info" },
  });
  const config = parseConfig(stringify(data), {}, "<cached bytes test config>");
  const logs: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void logs.push(line) });
  const gateway = await Gateway.create(config, { logger, plugins: [CredentialsPlugin, LocationsPlugin], adapters: [backend.factory()] });
  closers.push(() => gateway.close());
  const auth: Record<string, string> = {};
  for (const p of partners) {
    const token = await gateway.registry.issueToken(p.id);
    await gateway.registry.recordRegistration(p.id, {
      version: p.version,
      versionsUrl: peerUrl ? `${new URL(peerUrl).origin}/versions` : "http://127.0.0.1:9/versions",
      endpoints: p === CPO_PEER && peerUrl ? [{ identifier: "locations", role: "SENDER", url: peerUrl }] : [],
      roles: [p.role],
      tokenToPartner: "unused-token-to-partner",
    });
    auth[p.id] = p.version === "2.1.1" ? `Token ${token}` : `Token ${Buffer.from(token).toString("base64")}`;
  }
  const http_ = request(gateway.app.callback());
  const get = async (path: string, who = EMSP_230.id) => {
    const response = await http_.get(path).set("Authorization", auth[who]);
    expect(response.status).toBe(200);
    return response;
  };
  return { gateway, http: http_, auth, logs, get };
};

const names = (response: { body: Json }): string[] => response.body.data.map((l: Json) => l.name);

describe("the bytes of a cached page", () => {
  it("are what translating and serialising the entry gives, envelope and headers included, in every version", async () => {
    const backend = seeded(3);
    const cached = await start(backend);

    for (const [path, who] of [
      [`${LIST}?limit=2`, EMSP_230.id],
      ["/ocpi/2.1.1/sender/locations?limit=2", EMSP_211.id],
      [`${LIST}/LOC2`, EMSP_230.id],
      ["/ocpi/2.1.1/sender/locations/LOC2/EVSE2", EMSP_211.id],
    ] as const) {
      const first = await cached.get(path, who);
      const again = await cached.get(path, who);
      expect(again.text).not.toBe("");
      expect(again.headers["content-type"]).toBe("application/json; charset=utf-8");
      // the cached bytes are the envelope the first (translated and serialised) answer was, but for the timestamp
      const { timestamp: t1, ...rest1 } = JSON.parse(first.text);
      const { timestamp: t2, ...rest2 } = JSON.parse(again.text);
      expect(rest2).toEqual(rest1);
      expect(t2).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Object.keys(JSON.parse(again.text))).toEqual(["status_code", "timestamp", "data"]);
      for (const header of ["x-total-count", "x-limit", "link", "ocpi-to-party-id"]) expect(again.headers[header]).toBe(first.headers[header]);
      expect(Number(again.headers["content-length"])).toBe(Buffer.byteLength(again.text));
      expect(again.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
    }
    // one entry per path and list parameters, whatever the version: the list, LOC2, LOC2/EVSE2
    expect(backend.senderCalls).toBe(3);
  });

  it("are kept per version: a 2.1.1 and a 2.3.0 partner each get their own from one entry", async () => {
    const backend = seeded(2);
    const gw = await start(backend);
    for (let round = 0; round < 2; round++) {
      const v230 = await gw.get(`${LIST}?limit=2`, EMSP_230.id);
      const v211 = await gw.get("/ocpi/2.1.1/sender/locations?limit=2", EMSP_211.id);
      const other230 = await gw.get(`${LIST}?limit=2`, EMSP_230B.id);
      expect(v230.body.data[0].country_code).toBe("NL");
      expect(v230.body.data[0].evses[0].connectors[0].max_voltage).toBe(230);
      expect(v211.body.data[0].country_code).toBeUndefined();
      expect(v211.body.data[0].type).toBe("UNKNOWN");
      expect(v211.body.data[0].evses[0].connectors[0].voltage).toBe(230);
      expect(other230.body.data).toEqual(v230.body.data);
    }
    expect(backend.senderCalls).toBe(1);
  });

  it("log the fields their translation dropped for every partner they are served to, once each", async () => {
    const backend = seeded(1);
    const gw = await start(backend);
    const dropped = () => logLines(gw.logs, "field dropped by version translation").map((line) => JSON.parse(line).partner as string);
    await gw.get("/ocpi/2.1.1/sender/locations?limit=1", EMSP_211.id);
    const afterFirst = dropped();
    expect(afterFirst.length).toBeGreaterThan(0);
    expect(new Set(afterFirst)).toEqual(new Set([EMSP_211.id]));
    await gw.get("/ocpi/2.1.1/sender/locations?limit=1", EMSP_211.id);
    expect(dropped()).toEqual(afterFirst);
  });

  it("go with the entry on a change of the feed, a receiver write and a sync pull", async () => {
    const backend = seeded(2);
    // The CPO peer the gateway pulls from: one Location of its own.
    const peerLocation = testLocation(5, "Peer site", { country_code: "DE", party_id: "CPX" });
    const peer = http.createServer((req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.setHeader("X-Total-Count", "1");
      res.end(JSON.stringify({ status_code: 1000, timestamp: "2026-01-01T00:00:00Z", data: req.url?.includes("offset=1") ? [] : [peerLocation] }));
    });
    await listenOnLoopback(peer);
    const { port } = peer.address() as import("node:net").AddressInfo;
    closers.push(() => closeServer(peer));
    const gw = await start(backend, `http://127.0.0.1:${port}/ocpi/2.3.0/sender/locations`);

    const list = `${LIST}?limit=2`;
    expect(names(await gw.get(list))).toEqual(["Site 1", "Site 2"]);
    expect(names(await gw.get("/ocpi/2.1.1/sender/locations?limit=2", EMSP_211.id))).toEqual(["Site 1", "Site 2"]);

    // 1. a change on the feed
    backend.store(testLocation(1, "Changed"));
    expect(names(await gw.get(list))).toEqual(["Site 1", "Site 2"]);
    await gw.gateway.container.resolve(ChangeFeed).publish({ module: "locations", owner: OURS, path: ["LOC1"], kind: "upsert", object: testLocation(1, "Changed") });
    expect(names(await gw.get(list))).toEqual(["Changed", "Site 2"]);
    expect(names(await gw.get("/ocpi/2.1.1/sender/locations?limit=2", EMSP_211.id))).toEqual(["Changed", "Site 2"]);

    // 2. a receiver write, by any partner
    backend.store(testLocation(2, "Written behind"));
    expect(names(await gw.get(list))).toEqual(["Changed", "Site 2"]);
    const pushed = testLocation(7, "Pushed", { country_code: "DE", party_id: "CPX" });
    const put = await gw.http.put("/ocpi/2.3.0/receiver/locations/DE/CPX/LOC7").set("Authorization", gw.auth[CPO_PEER.id]).send(pushed);
    expect(put.status).toBe(201);
    expect(names(await gw.get(list))).toEqual(["Changed", "Written behind"]);

    // 3. a sync pull that stores something
    backend.store(testLocation(1, "Before the pull"));
    expect(names(await gw.get(list))).toEqual(["Changed", "Written behind"]);
    const result = await gw.gateway.container.resolve(SyncPuller).pull(CPO_PEER.id, "locations", { full: true, trigger: "on demand" });
    expect(result.objects).toBe(1);
    expect(names(await gw.get(list))).toEqual(["Before the pull", "Written behind"]);
    expect(names(await gw.get("/ocpi/2.1.1/sender/locations?limit=2", EMSP_211.id))).toEqual(["Before the pull", "Written behind"]);
  });
});
