/**
 * The world of the hub tests (test/e2e/hub-forwarding.test.ts, test/e2e/hub-party-beyond.test.ts).
 *
 * Issue #13: three gateways on loopback. A CPO on 2.2.1 and an eMSP on
 * 2.3.0 are each registered with a hub only (never with each other); the
 * hub forwards between them (routing headers), translating between the two
 * versions, and publishes their connection status (hubclientinfo). A fake
 * partner that answers slowly, then not at all, shows 4002 and 4003.
 * The CPO and eMSP gateways address the party beyond the hub: the CPO's
 * Sessions and CDRs go to their token's owner, the eMSP's admin API sends
 * commands and charging-profile requests to the CPO party (`?to=NLCPO`), and
 * their results come back through the hub's own response URLs to the eMSP
 * gateway's pending requests. A recorder on the eMSP's callback host
 * (`results`) stands in for response URLs of requests sent by hand.
 */
import "reflect-metadata";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import pino from "pino";
import type { GatewayConfig } from "../../config/types";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, sqliteStore, tempDir, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { ADMIN_TOKEN, adminApi, location, session, token } from "../support/charge-point";
import { captureLogs } from "../support/log-capture";
import { recordingServer, type RecordedRequest } from "../support/recording-server";
import type { AdapterDeps } from "../../core/contract/adapter";
import type { AdapterFactory } from "../../core/contract/adapter";
import { BUILT_IN_ADAPTERS } from "../../app/built-ins";

export type Json = Record<string, any>;

export const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
export const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
export const HUB: PartySpec = { country_code: "NL", party_id: "HUB", role: "OTHER" };
export const quiet = () => pino({ level: "silent" });

/** The hub's world, started in a beforeAll of the calling describe and stopped in its afterAll. */
export function hubWorld() {
  let cpo: Gateway;
  let hub: Gateway;
  let emsp: Gateway;
  let cpoConfig: GatewayConfig;
  let hubUrl: string;
  let emspUrl: string;
  /** the tokens the CPO and the eMSP present to the hub */
  let cpoToken: string;
  let emspToken: string;
  const cpoLogs = captureLogs("info");
  const emspLogs = captureLogs("info");
  let cpoUrl: string;
  /** the slow partner: answers its Locations after 3 s; `received` records the Authorization of each module call */
  let slow: FakePartner;
  /** a partner whose Locations page is 20 MB, and which answers commands ACCEPTED without ever posting a result itself */
  let big: FakePartner;
  const slowSeen: string[] = [];
  /** the eMSP's response URLs: every result POSTed there */
  let results: http.Server;
  let resultsUrl: string;
  const posted: RecordedRequest[] = [];

  /** what the CPO's adapter is given to ask a token's owner for real-time authorization (a backend without a token list) */
  let askTokenOwner: AdapterDeps["askTokenOwner"];
  const startCpo = async () => {
    // the built-in local adapter, keeping the deps it is created with
    const local = BUILT_IN_ADAPTERS.find((f) => f.type === "local")!;
    const keeping: AdapterFactory = { ...local, create: (settings, deps) => ((askTokenOwner = deps.askTokenOwner), local.create(settings, deps)) };
    cpo = await Gateway.create(cpoConfig, { logger: cpoLogs.logger, adapters: [keeping, ...BUILT_IN_ADAPTERS.filter((f) => f !== local)] });
    await cpo.listen();
  };

  /** A request through the hub, as the eMSP's platform sends it: its token, from DE/EMS, to `to`. */
  const viaHub = (method: string, path: string, options: { token?: string; from?: PartySpec; to?: PartySpec; body?: unknown; headers?: Record<string, string> } = {}) =>
    ocpiRequest(method, `${hubUrl}/ocpi${path}`, {
      token: options.token ?? emspToken,
      body: options.body,
      headers: {
        "X-Request-ID": `req-${Math.random().toString(36).slice(2)}`,
        "X-Correlation-ID": `corr-${Math.random().toString(36).slice(2)}`,
        "OCPI-from-country-code": (options.from ?? EMSP).country_code,
        "OCPI-from-party-id": (options.from ?? EMSP).party_id,
        "OCPI-to-country-code": (options.to ?? CPO).country_code,
        "OCPI-to-party-id": (options.to ?? CPO).party_id,
        ...options.headers,
      },
    });

  /** a party's status as the hub reported it to the eMSP gateway (or the gateway at `at`) */
  const receivedStatus = async (party: PartySpec, at = emspUrl): Promise<string | undefined> => {
    const { body } = await adminApi(at).get("/hubclientinfo");
    return (body.data.received as Json[]).find((r) => r.country_code === party.country_code && r.party_id === party.party_id)?.status;
  };

  beforeAll(async () => {
    const [cpoPort, hubPort, emspPort, slowPort, bigPort, resultsPort] = await freePorts(6);
    hubUrl = `http://127.0.0.1:${hubPort}`;
    cpoUrl = `http://127.0.0.1:${cpoPort}`;
    emspUrl = `http://127.0.0.1:${emspPort}`;
    resultsUrl = `http://127.0.0.1:${resultsPort}`;
    slow = await fakeSlowPartner(slowPort, slowSeen);
    big = await fakeSlowPartner(bigPort, [], "BIG", bigPage);
    results = await recordingServer(resultsPort, posted);

    hub = await Gateway.create(
      testGatewayConfig({
        port: hubPort,
        party: HUB,
        // a relayed response URL lives 2 s past the receiver's announced timeout
        server: { admin_token: ADMIN_TOKEN, hub_party_id: "NLHUB", command_timeout_seconds: 2, hub: { offline_after_ms: 600, probe_interval_ms: 200, forward_timeout_ms: 1500 } },
        partners: [
          // the CPO may reach the eMSP only (not the slow partner)
          { id: "cpo", token_a: "token-a-cpo-at-hub", versions_url: versionsUrlOf(cpoPort), roles: [{ role: "CPO", party: "NLCPO" }], forward: ["emsp"] },
          {
            id: "emsp",
            token_a: "token-a-emsp-at-hub",
            versions_url: versionsUrlOf(emspPort),
            roles: [{ role: "EMSP", party: "DEEMS" }],
            callback_hosts: [`127.0.0.1:${resultsPort}`],
          },
          { id: "big", token_a: "token-a-big-at-hub", versions_url: `http://127.0.0.1:${bigPort}/versions`, roles: [{ role: "CPO", party: "NLBIG" }] },
          { id: "slow", token_a: "token-a-slow-at-hub", versions_url: `http://127.0.0.1:${slowPort}/versions`, roles: [{ role: "CPO", party: "NLSLO" }] },
        ],
      }),
      { logger: quiet() },
    );
    await hub.listen();

    cpoConfig = testGatewayConfig({
      port: cpoPort,
      party: CPO,
      store: sqliteStore(),
      server: { admin_token: ADMIN_TOKEN },
      modules: {
        locations: { adapter: "local" },
        sessions: { adapter: "local" },
        cdrs: { adapter: "local" },
        tokens: { adapter: "local" },
        tariffs: { adapter: "local" },
        commands: { adapter: "local" },
        chargingprofiles: { adapter: "local" },
      },
      adapters: { local: { seed: threeLocations(), simulator: { outcome: "ACCEPTED", delay_ms: 50 } } },
      partners: [{ id: "hub", token_a: "token-a-cpo-at-hub", versions_url: versionsUrlOf(hubPort), versions: ["2.2.1"], roles: [{ role: "HUB", party: "NLHUB" }] }],
    });
    await startCpo();

    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        server: { admin_token: ADMIN_TOKEN },
        modules: {
          locations: { adapter: "local" },
          tokens: { adapter: "local" },
          sessions: { adapter: "local", roles: ["RECEIVER"] },
          cdrs: { adapter: "local", roles: ["RECEIVER"] },
          commands: { adapter: "local", roles: ["SENDER"] },
          chargingprofiles: { adapter: "local", roles: ["SENDER"] },
        },
        partners: [{ id: "hub", token_a: "token-a-emsp-at-hub", versions_url: versionsUrlOf(hubPort), versions: ["2.3.0"], roles: [{ role: "HUB", party: "NLHUB" }] }],
      }),
      { logger: emspLogs.logger },
    );
    await emsp.listen();

    expect(await cpo.credentials.register("hub")).toMatchObject({ status: "registered", version: "2.2.1" });
    expect(await emsp.credentials.register("hub")).toMatchObject({ status: "registered", version: "2.3.0" });
    expect(await hub.credentials.register("slow")).toMatchObject({ status: "registered", version: "2.2.1" });
    expect(await hub.credentials.register("big")).toMatchObject({ status: "registered", version: "2.2.1" });
    cpoToken = (await cpo.registry.get("hub"))!.tokenToPartner!;
    emspToken = (await emsp.registry.get("hub"))!.tokenToPartner!;
    // the eMSP's own token, for real-time authorization through the hub
    const event = await adminApi(emspUrl).post("/events", { module: "tokens", owner: { country_code: "DE", party_id: "EMS" }, path: [token.uid], kind: "upsert", object: token });
    expect(event.body.status_code).toBe(1000);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([cpo?.close(), hub?.close(), emsp?.close()]);
    for (const server of [slow.server, big.server, results]) await new Promise<void>((resolve) => server.close(() => resolve()));
    removeTempDirs();
  });

  return {
    get cpo() { return cpo; },
    get hub() { return hub; },
    get emsp() { return emsp; },
    get cpoConfig() { return cpoConfig; },
    get hubUrl() { return hubUrl; },
    get emspUrl() { return emspUrl; },
    get cpoToken() { return cpoToken; },
    get emspToken() { return emspToken; },
    get cpoUrl() { return cpoUrl; },
    get slow() { return slow; },
    get big() { return big; },
    get results() { return results; },
    get resultsUrl() { return resultsUrl; },
    get askTokenOwner() { return askTokenOwner; },
    cpoLogs, emspLogs, slowSeen, posted, startCpo, viaHub, receivedStatus,
  };
}
export type HubWorld = ReturnType<typeof hubWorld>;
export const BIG_PAGE_BYTES = 20 * 1024 * 1024;

/** How much of the big page the sender has received, and whether the partner waited for it half-way. */
export const bigProgress = { received: 0, waited: false };

/** A 20 MB Locations page, written 64 kB at a time as the connection drains; the second half waits for the sender to have the first. */
export const bigPage = (res: http.ServerResponse): void => {
  const filler = Buffer.from(`${JSON.stringify({ id: "X".repeat(30), note: "y".repeat(900) })},`);
  const chunk = Buffer.concat(Array.from({ length: 64 }, () => filler));
  const half = BIG_PAGE_BYTES / 2;
  let sent = 0;
  res.write('{"status_code":1000,"timestamp":"2024-05-01T10:00:00Z","data":[');
  const pump = (): void => {
    while (sent < BIG_PAGE_BYTES) {
      if (sent >= half && !bigProgress.waited) {
        if (bigProgress.received < sent - 2 * 1024 * 1024) return void setTimeout(pump, 10);
        bigProgress.waited = true;
      }
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    res.end('{"id":"LAST"}]}');
  };
  pump();
};

/** The CPO's seed: LOC1, LOC2 and LOC3, one second apart. */
export const threeLocations = (): string => {
  const file = path.join(tempDir("ocpi-hub-seed-"), "seed.json");
  const owner = { country_code: "NL", party_id: "CPO" };
  const locations = [1, 2, 3].map((n) => ({ ...location(owner), id: `LOC${n}`, last_updated: `2024-05-01T10:00:0${n}Z` }));
  fs.writeFileSync(file, JSON.stringify({ locations, sessions: [session(owner, "SES1")] }));
  return file;
};

/** A fake partner: its server, the token the hub gave it at registration, and the response_urls of the commands it got. */
export interface FakePartner {
  server: http.Server;
  hubToken?: string;
  responseUrls: string[];
  /** the method and path of every request it got */
  requests: string[];
}

/**
 * A 2.2.1 CPO that registers like any partner and answers its Locations
 * after 3 s (or with `answer`); it answers commands ACCEPTED (timeout 1 s)
 * and keeps their response_url.
 */
export const fakeSlowPartner = async (
  port: number,
  seen: string[],
  partyId = "SLO",
  answer?: (res: http.ServerResponse) => void,
): Promise<FakePartner> => {
  const fake: FakePartner = { server: undefined as never, responseUrls: [], requests: [] };
  const base = `http://127.0.0.1:${port}`;
  const ok = (data: unknown) => JSON.stringify({ status_code: 1000, timestamp: new Date().toISOString(), data });
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.setHeader("Content-Type", "application/json");
      const path = req.url ?? "";
      fake.requests.push(`${req.method} ${path}`);
      if (path === "/versions") return res.end(ok([{ version: "2.2.1", url: `${base}/2.2.1` }]));
      if (path === "/2.2.1")
        return res.end(
          ok({
            version: "2.2.1",
            endpoints: [
              { identifier: "credentials", role: "SENDER", url: `${base}/2.2.1/credentials` },
              { identifier: "locations", role: "SENDER", url: `${base}/2.2.1/locations` },
              { identifier: "commands", role: "RECEIVER", url: `${base}/2.2.1/commands` },
            ],
          }),
        );
      if (path === "/2.2.1/credentials" && req.method === "POST") {
        fake.hubToken = JSON.parse(body).token;
        return res.end(
          ok({
            token: "slow-partner-token-for-the-hub-0001",
            url: `${base}/versions`,
            roles: [{ role: "CPO", country_code: "NL", party_id: partyId, business_details: { name: "Slow CPO" } }],
          }),
        );
      }
      if (path.startsWith("/2.2.1/commands/")) {
        fake.responseUrls.push(JSON.parse(body).response_url);
        return res.end(ok({ result: "ACCEPTED", timeout: 1 }));
      }
      seen.push(String(req.headers.authorization));
      if (answer) return answer(res);
      setTimeout(() => res.end(ok([])), 3000).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  (server.address() as AddressInfo).port;
  fake.server = server;
  return fake;
};
