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
import { ADMIN_TOKEN, COMMAND_BODIES, adminApi, eventually, location, session, sleep, token } from "../support/charge-point";
import { cdrOf } from "../support/ocpi-objects";
import { COMMAND_TYPES } from "../../plugins/commands/model";
import { captureLogs } from "../support/log-capture";
import { recordingServer, type RecordedRequest } from "../support/recording-server";
import type { AdapterDeps, AdapterFactory } from "../../core/plugin";
import { BUILT_IN_ADAPTERS } from "../../app/built-ins";

/**
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

type Json = Record<string, any>;

const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
const HUB: PartySpec = { country_code: "NL", party_id: "HUB", role: "OTHER" };
const quiet = () => pino({ level: "silent" });

describe("a hub between a 2.2.1 CPO and a 2.3.0 eMSP", () => {
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

  it("hubclientinfo: the eMSP learns the CPO's status from the hub; the hub lists every party, paginated", async () => {
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("CONNECTED"), 10_000);
    const first = await ocpiRequest("GET", `${hubUrl}/ocpi/2.3.0/hubclientinfo?limit=2`, { token: emspToken });
    expect(first.status).toBe(200);
    expect(first.body.status_code).toBe(1000);
    expect(first.headers["x-total-count"]).toBe("4");
    expect(first.body.data).toHaveLength(2);
    expect(first.headers.link).toMatch(/offset=2/);
    // the partners registered last are published at the monitor's next turn
    await eventually(async () => {
      const parties = (await ocpiRequest("GET", `${hubUrl}/ocpi/2.3.0/hubclientinfo`, { token: emspToken })).body.data as Json[];
      expect(parties.map((p) => `${p.country_code}${p.party_id}:${p.role}:${p.status}`).sort()).toEqual([
        "DEEMS:EMSP:CONNECTED",
        "NLBIG:CPO:CONNECTED",
        "NLCPO:CPO:CONNECTED",
        "NLSLO:CPO:CONNECTED",
      ]);
    }, 5_000, 50);
    // the eMSP's version details name its receiver, which the hub pushed to
    const emspHub = await hub.registry.get("emsp");
    expect(emspHub!.endpoints).toContainEqual(expect.objectContaining({ identifier: "hubclientinfo", role: "RECEIVER" }));
    // the hub has no hub among its partners, so it offers no hubclientinfo receiver: nobody pushes ClientInfo to it
    const refused = await ocpiRequest("PUT", `${hubUrl}/ocpi/2.3.0/hubclientinfo/NL/CPO`, {
      token: emspToken,
      body: { country_code: "NL", party_id: "CPO", role: "CPO", status: "OFFLINE", last_updated: "2025-01-01T00:00:00Z" },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.body.status_code).not.toBe(1000);
  }, 20_000);

  it("GET list and object, eMSP → CPO: translated 2.2.1 → 2.3.0, ids kept, correlation id end to end", async () => {
    const correlation = "corr-list-0001";
    const list = await viaHub("GET", "/2.3.0/sender/locations?limit=10", { headers: { "X-Request-ID": "req-list-0001", "X-Correlation-ID": correlation } });
    expect(list.status).toBe(200);
    expect(list.body.status_code).toBe(1000);
    expect(list.headers["x-request-id"]).toBe("req-list-0001");
    expect(list.headers["x-correlation-id"]).toBe(correlation);
    expect(list.headers["x-total-count"]).toBe("3");
    expect(list.body.data).toHaveLength(3);
    expect(list.body.data[0]).toMatchObject({ id: "LOC1", country_code: "NL", party_id: "CPO" });
    expect(list.headers["ocpi-from-party-id"]).toBe("CPO");
    expect(list.headers["ocpi-to-party-id"]).toBe("EMS");
    // The CPO saw the same correlation id, on a request id of the hub's own.
    const line = cpoLogs.lines.map((l) => JSON.parse(l)).find((l) => l.correlationId === correlation && l.msg === "request");
    expect(line).toBeDefined();
    expect(line.requestId).not.toBe("req-list-0001");
    expect(line.partner).toBe("hub");

    // the same version on both sides: streamed through http-proxy, answer headers rewritten the same way
    const streamed = await viaHub("GET", "/2.2.1/sender/locations?limit=2", { headers: { "X-Request-ID": "req-stream-1", "X-Correlation-ID": "corr-stream-1" } });
    expect(streamed.body.status_code).toBe(1000);
    expect(streamed.body.data.map((l: Json) => l.id)).toEqual(["LOC1", "LOC2"]);
    expect(streamed.headers["x-request-id"]).toBe("req-stream-1");
    expect(streamed.headers["x-correlation-id"]).toBe("corr-stream-1");
    expect(String(streamed.headers.link)).toContain(`${hubUrl}/ocpi/2.2.1/sender/locations?`);
    expect(cpoLogs.lines.some((l) => l.includes('"correlationId":"corr-stream-1"'))).toBe(true);

    const one = await viaHub("GET", "/2.3.0/sender/locations/LOC1/EVSE1");
    expect(one.body).toMatchObject({ status_code: 1000, data: { uid: "EVSE1" } });
    const unknown = await viaHub("GET", "/2.3.0/sender/locations/NOPE");
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2003);
  });

  it("a Link to the next page points at the hub, and following it continues the CPO's list", async () => {
    const first = await viaHub("GET", "/2.3.0/sender/locations?limit=1");
    expect(first.headers["x-total-count"]).toBe("3");
    expect(first.body.data.map((l: Json) => l.id)).toEqual(["LOC1"]);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1];
    expect(next.startsWith(`${hubUrl}/ocpi/2.3.0/sender/locations?`)).toBe(true);
    const second = await viaHub("GET", next.slice(`${hubUrl}/ocpi`.length));
    expect(second.body.data.map((l: Json) => l.id)).toEqual(["LOC2"]);
  });

  it("PUT and PATCH pushes eMSP → CPO through the hub, read back through it", async () => {
    const put = await viaHub("PUT", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`, { body: { ...token, type: "RFID" } });
    expect(put.body.status_code).toBe(1000);
    expect([200, 201]).toContain(put.status);
    const patch = await viaHub("PATCH", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`, { body: { valid: false, last_updated: "2024-06-01T00:00:00Z" } });
    expect(patch.body.status_code).toBe(1000);
    const back = await viaHub("GET", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`);
    expect(back.body).toMatchObject({ status_code: 1000, data: { uid: token.uid, valid: false, last_updated: "2024-06-01T00:00:00Z" } });
    // an invalid body is refused at the hub, naming the field, in the sender's version
    const bad = await viaHub("PUT", `/2.3.0/receiver/tokens/DE/EMS/${token.uid}`, { body: { ...token, valid: "maybe" } });
    expect(bad.body.status_code).toBe(2001);
    expect(bad.body.status_message).toMatch(/\/valid/);
  });

  it("PUT pushes CPO → eMSP, and the CPO's real-time authorization reaches the eMSP", async () => {
    const loc = { ...location({ country_code: "NL", party_id: "CPO" }), id: "LOC9" };
    const put = await viaHub("PUT", "/2.2.1/receiver/locations/NL/CPO/LOC9", { token: cpoToken, from: CPO, to: EMSP, body: loc });
    expect(put.body.status_code).toBe(1000);
    const stored = await viaHub("GET", "/2.2.1/receiver/locations/NL/CPO/LOC9", { token: cpoToken, from: CPO, to: EMSP });
    expect(stored.body).toMatchObject({ status_code: 1000, data: { id: "LOC9" } });
    const auth = await viaHub("POST", `/2.2.1/sender/tokens/${token.uid}/authorize`, { token: cpoToken, from: CPO, to: EMSP, body: { location_id: "LOC1" } });
    expect(auth.body).toMatchObject({ status_code: 1000, data: { allowed: "ALLOWED" } });
    const unknown = await viaHub("POST", "/2.2.1/sender/tokens/NOSUCH/authorize", { token: cpoToken, from: CPO, to: EMSP });
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2004);
    // the CPO gateway's own path (AdapterDeps.askTokenOwner): the hub lists DE/EMS (hubclientinfo), so it is asked, addressed to DE/EMS
    await eventually(async () => expect(await receivedStatus(EMSP, cpoUrl)).toBe("CONNECTED"), 10_000);
    const emspOwner = { country_code: "DE", party_id: "EMS" };
    expect(await askTokenOwner(emspOwner, { uid: token.uid, type: "RFID" })).toEqual({ kind: "answered", allowed: "ALLOWED" });
    expect(await askTokenOwner(emspOwner, { uid: "NOSUCH", type: "RFID" })).toEqual({ kind: "unknown_token" });
    // a party no partner lists is asked of nobody
    expect(await askTokenOwner({ country_code: "FR", party_id: "XYZ" }, { uid: token.uid, type: "RFID" })).toBeUndefined();
  });

  it("a push addressed to the hub party is broadcast to the partners of the opposite role (the eMSP), translated", async () => {
    const loc = { ...location({ country_code: "NL", party_id: "CPO" }), id: "LOC7" };
    const sent = await viaHub("PUT", "/2.2.1/receiver/locations/NL/CPO/LOC7", { token: cpoToken, from: CPO, to: HUB, body: loc });
    expect(sent.body.status_code).toBe(1000);
    expect(sent.headers["ocpi-from-party-id"]).toBe("HUB");
    // a Session belongs to one eMSP: never broadcast
    const session = await viaHub("PUT", "/2.2.1/receiver/sessions/NL/CPO/SES9", { token: cpoToken, from: CPO, to: HUB, body: { id: "SES9" } });
    expect(session.body.status_code).toBe(2001);
    expect(session.body.status_message).toMatch(/never broadcast/);
    // delivered by the hub's outbox to the eMSP (2.3.0); read back through the hub like any forwarded GET
    await eventually(async () => {
      const stored = await viaHub("GET", "/2.2.1/receiver/locations/NL/CPO/LOC7", { token: cpoToken, from: CPO, to: EMSP });
      expect(stored.body).toMatchObject({ status_code: 1000, data: { id: "LOC7" } });
    }, 10_000, 100);
  });

  it("isolation: the from-party must be the sender's; a receiver outside the sender's forward list or unknown is 4001", async () => {
    const spoofed = await viaHub("GET", "/2.3.0/sender/locations", { from: { country_code: "NL", party_id: "CPO", role: "CPO" } });
    expect(spoofed.body.status_code).toBe(2001);
    const unknown = await viaHub("GET", "/2.3.0/sender/locations", { to: { country_code: "FR", party_id: "XYZ", role: "CPO" } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(4001);
    const notAllowed = await viaHub("GET", "/2.2.1/sender/locations", { token: cpoToken, from: CPO, to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(notAllowed.body.status_code).toBe(4001);
    const noToken = await viaHub("GET", "/2.3.0/sender/locations", { token: "not-a-token-of-anyone" });
    expect(noToken.status).toBe(401);
  });

  it("a receiver that does not answer in time is 4002; one that is down is 4003; only its own token reaches it", async () => {
    const late = await viaHub("GET", "/2.2.1/sender/locations", { to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(late.status).toBe(504);
    expect(late.body.status_code).toBe(4002);
    const slowRecord = await hub.registry.get("slow");
    expect(slowSeen.length).toBeGreaterThan(0);
    for (const auth of slowSeen) expect(auth).toBe(`Token ${Buffer.from(slowRecord!.tokenToPartner!).toString("base64")}`);
    expect(slowSeen.join()).not.toContain(Buffer.from(emspToken).toString("base64"));
    await new Promise<void>((resolve) => slow.server.close(() => resolve()));
    slow.server.closeAllConnections();
    const down = await viaHub("GET", "/2.2.1/sender/locations", { to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(down.status).toBe(502);
    expect(down.body.status_code).toBe(4003);
    // unregistered at the hub: refused from the moment that write returned (the current registration
    // generation), not after the second the hub once kept its partner list for
    await hub.registry.unregister("slow");
    const gone = await viaHub("GET", "/2.2.1/sender/locations", { to: { country_code: "NL", party_id: "SLO", role: "CPO" } });
    expect(gone.body).toMatchObject({ status_code: 4003, status_message: "Receiver NL/SLO is not connected" });
  }, 15_000);

  it("a 20 MB page is streamed through the hub (same version), never held whole", async () => {
    // The partner sends the second half of the page only once the sender has received all but 2 MB of the first:
    // a hub that buffered the answer would never pass the first half on, and the request would time out.
    const received = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${hubUrl}/ocpi/2.2.1/sender/locations`,
        {
          headers: {
            Authorization: `Token ${Buffer.from(emspToken).toString("base64")}`,
            "OCPI-from-country-code": "DE",
            "OCPI-from-party-id": "EMS",
            "OCPI-to-country-code": "NL",
            "OCPI-to-party-id": "BIG",
          },
          agent: false,
        },
        (res) => {
          res.on("data", (chunk: Buffer) => (bigProgress.received += chunk.length));
          res.on("end", () => resolve(bigProgress.received));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(received).toBeGreaterThan(BIG_PAGE_BYTES);
    expect(bigProgress.waited).toBe(true);
  }, 30_000);

  it("the hub's version details list the modules it forwards, not only the ones it serves", async () => {
    const details = await ocpiRequest("GET", `${hubUrl}/ocpi/2.3.0`, { token: emspToken });
    const endpoints = (details.body.data.endpoints as Json[]).map((e) => `${e.identifier}.${e.role}`);
    for (const module of ["locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles"])
      expect(endpoints).toEqual(expect.arrayContaining([`${module}.SENDER`, `${module}.RECEIVER`]));
    expect(endpoints).toContain("hubclientinfo.SENDER");
    const commands = (details.body.data.endpoints as Json[]).find((e) => e.identifier === "commands" && e.role === "RECEIVER");
    expect(commands!.url).toBe(`${hubUrl}/ocpi/2.3.0/receiver/commands`);
    // 2.1.1 has no routing headers: nothing is forwarded there, and nothing is listed
    const old = await ocpiRequest("GET", `${hubUrl}/ocpi/2.1.1`, { token: emspToken });
    expect((old.body?.data?.endpoints ?? []).map((e: Json) => e.identifier)).not.toContain("commands");
  });

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

  it("hubclientinfo: the CPO goes OFFLINE when it stops and CONNECTED when it is back, on the eMSP's side", async () => {
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("CONNECTED"), 10_000);
    await cpo.close();
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("OFFLINE"), 10_000, 100);
    // forwarding to an OFFLINE receiver: 4003 at once
    const offline = await viaHub("GET", "/2.3.0/sender/locations");
    expect(offline.body.status_code).toBe(4003);
    await startCpo();
    await eventually(async () => expect(await receivedStatus(CPO)).toBe("CONNECTED"), 10_000, 100);
    const again = await viaHub("GET", "/2.3.0/sender/locations");
    expect(again.body.status_code).toBe(1000);
    await sleep(10);
  }, 30_000);
});

const BIG_PAGE_BYTES = 20 * 1024 * 1024;

/** How much of the big page the sender has received, and whether the partner waited for it half-way. */
const bigProgress = { received: 0, waited: false };

/** A 20 MB Locations page, written 64 kB at a time as the connection drains; the second half waits for the sender to have the first. */
const bigPage = (res: http.ServerResponse): void => {
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
const threeLocations = (): string => {
  const file = path.join(tempDir("ocpi-hub-seed-"), "seed.json");
  const owner = { country_code: "NL", party_id: "CPO" };
  const locations = [1, 2, 3].map((n) => ({ ...location(owner), id: `LOC${n}`, last_updated: `2024-05-01T10:00:0${n}Z` }));
  fs.writeFileSync(file, JSON.stringify({ locations, sessions: [session(owner, "SES1")] }));
  return file;
};

/** A fake partner: its server, the token the hub gave it at registration, and the response_urls of the commands it got. */
interface FakePartner {
  server: http.Server;
  hubToken?: string;
  responseUrls: string[];
}

/**
 * A 2.2.1 CPO that registers like any partner and answers its Locations
 * after 3 s (or with `answer`); it answers commands ACCEPTED (timeout 1 s)
 * and keeps their response_url.
 */
const fakeSlowPartner = async (
  port: number,
  seen: string[],
  partyId = "SLO",
  answer?: (res: http.ServerResponse) => void,
): Promise<FakePartner> => {
  const fake: FakePartner = { server: undefined as never, responseUrls: [] };
  const base = `http://127.0.0.1:${port}`;
  const ok = (data: unknown) => JSON.stringify({ status_code: 1000, timestamp: new Date().toISOString(), data });
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      res.setHeader("Content-Type", "application/json");
      const path = req.url ?? "";
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
      if (path === "/2.2.1/credentials") {
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
