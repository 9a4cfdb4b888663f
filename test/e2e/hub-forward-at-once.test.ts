/**
 * A hub's forwarded GETs answered at once (core/host/forwarded-get.ts: Forwarder.prepareGetNow, admitNow, the
 * SQLite store's change marks) still see, from the moment it returned, a registration or token change written
 * by another gateway instance on the same SQLite file, as every request through the kernel does.
 */
import "reflect-metadata";
import http from "node:http";
import { Gateway } from "../../app/gateway";
import type { GatewayConfig } from "../../config/types";
import { freePorts } from "../support/free-ports";
import { removeTempDirs, sqliteStore, testGatewayConfig } from "../support/gateway-config";
import { captureLogs, type LogCapture } from "../support/log-capture";
import { SCOPE_IDLE_MS } from "../../core/http/request-scope";
import { scopeLooks } from "../support/scope-look";

const LOCATIONS = [{ id: "LOC1" }, { id: "LOC2" }];

describe("forwarded GETs answered at once, with another instance on the hub's SQLite file", () => {
  let hub: Gateway;
  let other: Gateway;
  let config: GatewayConfig;
  let receiver: http.Server;
  let hubUrl: string;
  let senderToken: string;
  let received: (string | undefined)[];
  /** connections the receiver accepted, and the Keep-Alive header it answers with (none when undefined) */
  let connections: number;
  let keepAlive: string | undefined;
  /** how long the receiver takes to answer */
  let answerAfterMs: number;
  let logs: LogCapture;

  beforeEach(async () => {
    const [hubPort, receiverPort] = await freePorts(2);
    hubUrl = `http://127.0.0.1:${hubPort}`;
    received = [];
    connections = 0;
    keepAlive = undefined;
    answerAfterMs = 0;
    receiver = http.createServer((req, res) => {
      received.push(req.headers.authorization);
      const answer = () => {
        res.writeHead(200, { "Content-Type": "application/json", "X-Total-Count": "2", ...(keepAlive ? { "Keep-Alive": keepAlive } : {}) });
        res.end(JSON.stringify({ status_code: 1000, timestamp: new Date().toISOString(), data: LOCATIONS }));
      };
      if (answerAfterMs > 0) setTimeout(answer, answerAfterMs);
      else answer();
    });
    receiver.on("connection", () => connections++);
    await new Promise<void>((resolve) => receiver.listen(receiverPort, "127.0.0.1", () => resolve()));
    config = testGatewayConfig({
      port: hubPort,
      party: { country_code: "NL", party_id: "HUB", role: "OTHER" },
      store: sqliteStore(),
      server: { hub_party_id: "NLHUB", hub: { offline_after_ms: 60_000, probe_interval_ms: 600_000, forward_timeout_ms: 2000 } },
      partners: [
        { id: "emsp", versions: ["2.3.0"], roles: [{ role: "EMSP", party: "DEEMS" }] },
        // the receiver on loopback: an origin the operator names (outbound URL policy)
        { id: "cpo", versions: ["2.3.0"], roles: [{ role: "CPO", party: "NLCPO" }], callback_hosts: [`127.0.0.1:${receiverPort}`] },
      ],
    });
    logs = captureLogs("info");
    hub = await Gateway.create(config, { logger: logs.logger });
    senderToken = await hub.registry.issueToken("emsp");
    await hub.registry.recordRegistration("emsp", {
      version: "2.3.0",
      versionsUrl: "http://127.0.0.1:1/versions",
      endpoints: [],
      roles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "eMSP" } }],
      tokenToPartner: "emsp-token-for-the-hub",
    });
    await hub.registry.recordRegistration("cpo", {
      version: "2.3.0",
      versionsUrl: `http://127.0.0.1:${receiverPort}/versions`,
      endpoints: [{ identifier: "locations", role: "SENDER", url: `http://127.0.0.1:${receiverPort}/2.3.0/locations` }],
      roles: [{ country_code: "NL", party_id: "CPO", role: "CPO", business_details: { name: "CPO" } }],
      tokenToPartner: "cpo-token-for-the-hub",
    });
    await hub.listen();
    // a second instance on the same file: its writes are another connection's commits
    other = await Gateway.create(config);
  });

  afterEach(async () => {
    await Promise.all([hub?.close(), other?.close()]);
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    removeTempDirs();
  });

  const viaHub = async (token = senderToken): Promise<{ status: number; body: { status_code?: number; status_message?: string; data?: unknown } }> => {
    const response = await fetch(`${hubUrl}/ocpi/2.3.0/sender/locations?limit=2`, {
      headers: {
        Authorization: `Token ${Buffer.from(token).toString("base64")}`,
        "OCPI-from-country-code": "DE",
        "OCPI-from-party-id": "EMS",
        "OCPI-to-country-code": "NL",
        "OCPI-to-party-id": "CPO",
      },
    });
    return { status: response.status, body: (await response.json()) as { status_code?: number; data?: unknown } };
  };

  /** Enough requests that the later ones find everything known at once (the first ones read it). */
  const warm = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) expect(await viaHub()).toMatchObject({ status: 200, body: { status_code: 1000, data: LOCATIONS } });
  };

  it("the access line of a GET answered at once names its partner and ids, as Koa's do", async () => {
    await warm();
    const lines = logs.lines.map((line) => JSON.parse(line)).filter((line) => line.msg === "request");
    expect(lines).toHaveLength(5);
    for (const line of lines)
      expect(line).toMatchObject({ partner: "emsp", interface: "SENDER", status: 200, requestId: expect.any(String), correlationId: expect.any(String) });
  });

  it("GETs answered at once do not enter requestScope, which lets go of node's async hooks once no request was served in it for a while", async () => {
    // the receiver's status is read again once a second, by a GET served in requestScope (ReceiverRoutes): with the
    // clock standing still (Date only; timers run) it stays known, so every GET after the first ones is answered at once
    jest.useFakeTimers({ doNotFake: ["hrtime", "nextTick", "performance", "queueMicrotask", "setImmediate", "clearImmediate", "setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    try {
      await warm();
      const [beforeGets, afterGets] = await scopeLooks(2);
      await new Promise((resolve) => setTimeout(resolve, 3 * SCOPE_IDLE_MS));
      expect(await beforeGets()).toBeUndefined();
      for (let i = 0; i < 3; i++) expect(await viaHub()).toMatchObject({ status: 200, body: { status_code: 1000 } });
      // a GET served in requestScope would have turned it on again, for SCOPE_IDLE_MS at least
      expect(await afterGets()).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });

  it("a receiver unregistered by the other instance is refused by the next request", async () => {
    await warm();
    await other.registry.unregister("cpo");
    expect((await viaHub()).body).toMatchObject({ status_code: 4003, status_message: "Receiver NL/CPO is not connected" });
  });

  it("a sender's token rotated by the other instance works at once, and none once the sender is unregistered there", async () => {
    await warm();
    const rotated = await other.registry.issueToken("emsp");
    expect(await viaHub(rotated)).toMatchObject({ status: 200, body: { status_code: 1000 } });
    await other.registry.unregister("emsp");
    expect((await viaHub(rotated)).status).toBe(401);
  });

  it("a receiver's token rotated by the other instance reaches the receiver with the next request", async () => {
    await warm();
    expect(received.at(-1)).toBe(`Token ${Buffer.from("cpo-token-for-the-hub").toString("base64")}`);
    const record = await other.registry.get("cpo");
    await other.registry.recordRegistration("cpo", {
      version: "2.3.0",
      versionsUrl: record!.versionsUrl!,
      endpoints: record!.endpoints,
      roles: record!.roles,
      tokenToPartner: "cpo-token-for-the-hub-rotated",
    });
    expect(await viaHub()).toMatchObject({ status: 200, body: { status_code: 1000 } });
    expect(received.at(-1)).toBe(`Token ${Buffer.from("cpo-token-for-the-hub-rotated").toString("base64")}`);
  });

  it("keeps the connection to the receiver for the next request, unless the receiver announces a keep-alive timeout of 1 s or less, and closes it idle past the forward timeout", async () => {
    await warm();
    const opened = connections;
    await warm();
    expect(connections).toBe(opened);
    keepAlive = "timeout=1";
    await warm();
    // the first of these still went on the kept connection; each answer then announced a timeout too short to reuse it
    expect(connections).toBe(opened + 4);
    keepAlive = "timeout=5";
    await warm();
    expect(connections).toBe(opened + 5);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await warm();
    expect(connections).toBe(opened + 6);
  });

  it("a kept connection idles under the receiver's announced keep-alive, and a request on it still has the whole forward timeout", async () => {
    // timeout=2: the connection is kept and idles at most 1 s (2 s less node's margin), under the forward timeout of 2 s
    keepAlive = "timeout=2";
    await warm();
    const opened = connections;
    answerAfterMs = 1500;
    expect(await viaHub()).toMatchObject({ status: 200, body: { status_code: 1000, data: LOCATIONS } });
    expect(connections).toBe(opened);
  });
});
