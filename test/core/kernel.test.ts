import "reflect-metadata";
import http from "node:http";
import net from "node:net";
import { Writable } from "node:stream";
import request from "supertest";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { createLogger } from "../../core/logging/logger";
import { removeTempDirs, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { freePorts, tokenHeader } from "../support/gateway-process";

/**
 * The protocol kernel through the HTTP surface of an in-process gateway:
 * envelope, request/correlation ids, JSON errors, version details and the
 * server side of the credentials handshake with its failure codes
 * (OCPI 2.2.1 Transport and format: unique message IDs, response format, status codes; Credentials module).
 */

const T_PEER = "kernel-peer-token-A-000001";
const T_221 = "kernel-v221-token-A-000002";
const T_FAKE = "kernel-fake-token-A-000003";
const T_OPEN = "kernel-open-token-A-000004";
const TOKEN_B = "token-B-the-gateway-must-use-on-callbacks";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// --- a fake partner platform on loopback ------------------------------------------------------------

interface FakeRequest {
  method: string;
  url: string;
  authorization?: string;
}

/** Serves a versions list and version details as configured; records every request it gets. */
class FakePartner {
  readonly requests: FakeRequest[] = [];
  versions: { version: string; url: string }[] = [];
  details: Record<string, unknown> = {};
  private readonly server = http.createServer((req, res) => {
    this.requests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization });
    const data = req.url === "/versions" ? this.versions : this.details[req.url!];
    res.writeHead(data === undefined ? 404 : 200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ status_code: data === undefined ? 2000 : 1000, data, timestamp: new Date().toISOString() }));
  });
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

// --- no request may leave loopback -------------------------------------------------------------------

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost", "::ffff:127.0.0.1"]);
const outboundAttempts: string[] = [];
const realConnect = net.Socket.prototype.connect;

/** A guard, not a mock: any TCP connect to a non-loopback host fails at once and is recorded. */
const guardLoopbackOnly = () => {
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string; path?: string } | number | string;
    const host = typeof options === "object" && options !== null ? options.host : typeof args[1] === "string" ? args[1] : undefined;
    const isPipe = typeof options === "object" && options !== null && options.path !== undefined;
    if (!isPipe && host !== undefined && !LOOPBACK.has(host.replace(/^\[|\]$/g, ""))) {
      outboundAttempts.push(host);
      process.nextTick(() => this.destroy(new Error(`test guard: no connections to ${host}`)));
      return this;
    }
    return (realConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;
};

// --- gateways ------------------------------------------------------------------------------------

let gateway: Gateway; // the gateway under test
let peer: Gateway; // a second gateway that registers with it, to get a registered token
let fake: FakePartner;
let closedPort: number;
let registeredToken: string;
const logLines: string[] = [];

beforeAll(async () => {
  guardLoopbackOnly();
  fake = new FakePartner();
  await fake.start();
  const [port, peerPort, unused] = await freePorts(3);
  closedPort = unused;
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  gateway = await Gateway.create(
    testGatewayConfig({
      port,
      party: { country_code: "NL", party_id: "GWY", role: "CPO" },
      server: { request_timeout_ms: 2000 },
      partners: [
        { id: "peer", token_a: T_PEER, versions_url: versionsUrlOf(peerPort) },
        { id: "only221", token_a: T_221, versions: ["2.2.1"] },
        { id: "fake", token_a: T_FAKE, versions_url: `${fake.url}/versions` },
        // no versions_url: a private registration address must be allowed in callback_hosts (README "Outbound URL policy")
        { id: "open", token_a: T_OPEN, callback_hosts: [`127.0.0.1:${closedPort}`] },
      ],
    }),
    { logger: createLogger("debug", sink) },
  );
  peer = await Gateway.create(
    testGatewayConfig({
      port: peerPort,
      party: { country_code: "DE", party_id: "PER", role: "EMSP" },
      partners: [{ id: "gw", token_a: T_PEER, versions_url: versionsUrlOf(port) }],
    }),
    { logger: pino({ level: "silent" }) },
  );
  await Promise.all([gateway.listen(), peer.listen()]);
  // The peer registers with the gateway under test, the way `partners register` does.
  await peer.credentials.register("gw");
  registeredToken = (await peer.registry.get("gw"))!.tokenToPartner!;
});

afterAll(async () => {
  net.Socket.prototype.connect = realConnect;
  await Promise.all([gateway?.close(), peer?.close(), fake?.stop()]);
  removeTempDirs();
});

const api = () => request(gateway.app.callback());
const auth = (token: string) => tokenHeader(token);

const expectEnvelope = (response: request.Response) => {
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(response.body).toEqual(expect.objectContaining({ status_code: expect.any(Number), timestamp: expect.stringMatching(TIMESTAMP) }));
};

const validCredentials = (url: string) => ({
  token: TOKEN_B,
  url,
  roles: [{ role: "EMSP", business_details: { name: "Partner" }, party_id: "PTR", country_code: "DE" }],
});

describe("envelope", () => {
  it.each([
    ["GET versions", 200, () => api().get("/ocpi/versions").set("Authorization", auth(T_OPEN))],
    ["GET version details", 200, () => api().get("/ocpi/2.2.1").set("Authorization", auth(T_OPEN))],
    ["GET credentials", 200, () => api().get("/ocpi/2.3.0/credentials").set("Authorization", auth(registeredToken))],
    ["no token", 401, () => api().get("/ocpi/versions")],
    ["unknown path outside /ocpi", 404, () => api().get("/no/such/path")],
    ["unknown module path, registered token", 404, () => api().get("/ocpi/2.3.0/sender/locations").set("Authorization", auth(registeredToken))],
    ["unknown version, registered token", 404, () => api().get("/ocpi/3.0.0").set("Authorization", auth(registeredToken))],
    ["method not allowed", 405, () => api().patch("/ocpi/2.3.0/credentials").set("Authorization", auth(registeredToken)).send({})],
    ["method the router does not know", 501, () => api().propfind("/ocpi/versions").set("Authorization", auth(registeredToken))],
    ["malformed JSON", 400, () => api().post("/ocpi/2.3.0/credentials").set("Authorization", auth(T_OPEN)).set("Content-Type", "application/json").send("{")],
  ] as const)("%s: HTTP %i with an envelope whose timestamp is UTC with Z", async (_name, status, send) => {
    const response = await send();
    expect(response.status).toBe(status);
    expectEnvelope(response);
  });

  it("unknown paths answer 404 with an envelope that names no secret", async () => {
    const response = await api().get("/ocpi/2.3.0/sender/locations").set("Authorization", auth(registeredToken));
    expect(response.status).toBe(404);
    expect(response.body.status_code).toBe(2000);
    expect(response.text).not.toContain(registeredToken);
  });
});

describe("X-Request-ID and X-Correlation-ID", () => {
  it.each([
    ["a success", "/ocpi/versions", T_OPEN],
    ["a 401", "/ocpi/versions", undefined],
    ["a 404", "/nowhere", undefined],
  ] as const)("are echoed on %s", async (_name, path, token) => {
    const req = api().get(path).set("X-Request-ID", "req-0001-abc").set("X-Correlation-ID", "corr-0001-xyz");
    if (token) req.set("Authorization", auth(token));
    const response = await req;
    expect(response.headers["x-request-id"]).toBe("req-0001-abc");
    expect(response.headers["x-correlation-id"]).toBe("corr-0001-xyz");
  });

  it("are minted when absent: a fresh request id each time, the correlation id follows it", async () => {
    const first = await api().get("/ocpi/versions").set("Authorization", auth(T_OPEN));
    const second = await api().get("/ocpi/versions");
    for (const response of [first, second]) {
      expect(response.headers["x-request-id"]).toMatch(UUID);
      expect(response.headers["x-correlation-id"]).toBe(response.headers["x-request-id"]);
    }
    expect(first.headers["x-request-id"]).not.toEqual(second.headers["x-request-id"]);
  });

  it("a correlation id alone is kept, and a request id is minted", async () => {
    const response = await api().get("/ocpi/versions").set("Authorization", auth(T_OPEN)).set("X-Correlation-ID", "corr-only");
    expect(response.headers["x-correlation-id"]).toBe("corr-only");
    expect(response.headers["x-request-id"]).toMatch(UUID);
  });
});

describe("request bodies", () => {
  it("malformed JSON on credentials POST: HTTP 400 + 2001, without echoing the body", async () => {
    const body = `{"token": "${TOKEN_B}", "url": "http://127.0.0.1/x", "roles": [`;
    const response = await api()
      .post("/ocpi/2.3.0/credentials")
      .set("Authorization", auth(T_OPEN))
      .set("Content-Type", "application/json")
      .send(body);
    expect(response.status).toBe(400);
    expect(response.body.status_code).toBe(2001);
    expect(response.text).not.toContain(TOKEN_B);
    expect(response.text).not.toContain("roles");
    expect(logLines.join("")).not.toContain(TOKEN_B);
  });

  it("a body whose Content-Type is not JSON is refused with 2001 naming it (strictness reject)", async () => {
    const response = await api()
      .post("/ocpi/2.3.0/credentials")
      .set("Authorization", auth(T_OPEN))
      .set("Content-Type", "text/plain")
      .send(JSON.stringify({ token: "x".repeat(65), url: "http://127.0.0.1/v", roles: [] }));
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toContain("Content-Type text/plain");
  });
});

describe("version details", () => {
  it("GET versions lists every version for a partner that accepts all", async () => {
    const response = await api().get("/ocpi/versions").set("Authorization", auth(T_OPEN));
    expect(response.body.data).toEqual([
      { version: "2.3.0", url: `${gateway.config.server.public_url}/ocpi/2.3.0` },
      { version: "2.2.1", url: `${gateway.config.server.public_url}/ocpi/2.2.1` },
      { version: "2.1.1", url: `${gateway.config.server.public_url}/ocpi/2.1.1` },
    ]);
  });

  it.each(["2.3.0", "2.2.1"])("%s lists credentials with a role", async (version) => {
    const response = await api().get(`/ocpi/${version}`).set("Authorization", auth(T_OPEN));
    expect(response.status).toBe(200);
    expect(response.body.data.version).toBe(version);
    expect(response.body.data.endpoints).toContainEqual({
      identifier: "credentials",
      role: "SENDER",
      url: `${gateway.config.server.public_url}/ocpi/${version}/credentials`,
    });
  });

  it("2.1.1 lists credentials without a role", async () => {
    const response = await api().get("/ocpi/2.1.1").set("Authorization", auth(T_OPEN));
    const credentials = response.body.data.endpoints.find((e: { identifier: string }) => e.identifier === "credentials");
    expect(credentials).toEqual({ identifier: "credentials", url: `${gateway.config.server.public_url}/ocpi/2.1.1/credentials` });
    for (const endpoint of response.body.data.endpoints) expect(endpoint).not.toHaveProperty("role");
  });

  it("a partner with versions: [2.2.1] sees only 2.2.1", async () => {
    const versions = await api().get("/ocpi/versions").set("Authorization", auth(T_221));
    expect(versions.body.data).toEqual([{ version: "2.2.1", url: `${gateway.config.server.public_url}/ocpi/2.2.1` }]);
    expect((await api().get("/ocpi/2.2.1").set("Authorization", auth(T_221))).status).toBe(200);
    const other = await api().get("/ocpi/2.3.0").set("Authorization", auth(T_221));
    expect(other.status).toBe(404);
    expectEnvelope(other);
    const credentials = await api().get("/ocpi/2.3.0/credentials").set("Authorization", auth(T_221));
    expect(credentials.status).toBe(401);
    expectEnvelope(credentials);
  });
});

describe("credentials POST, server side", () => {
  const post = (token: string, body: unknown, version = "2.3.0") =>
    api().post(`/ocpi/${version}/credentials`).set("Authorization", auth(token)).send(body as object);

  it.each([
    ["a token of 65 characters", "/token", (b: any) => (b.token = "t".repeat(65))],
    ["no url", "/url", (b: any) => delete b.url],
    ["empty roles", "/roles", (b: any) => (b.roles = [])],
    ["a role without party_id", "/roles/0/party_id", (b: any) => delete b.roles[0].party_id],
  ])("an invalid body (%s) is 2001 naming %s", async (_name, pointer, mutate) => {
    const body = validCredentials(`http://127.0.0.1:${closedPort}/versions`);
    mutate(body);
    const response = await post(T_OPEN, body);
    expect(response.status).toBe(200);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toContain(`${pointer}:`);
    expect(response.text).not.toContain("t".repeat(65));
  });

  it("several invalid fields are all named", async () => {
    const response = await post(T_OPEN, { token: "t".repeat(65), roles: [] });
    expect(response.body.status_code).toBe(2001);
    for (const pointer of ["/token", "/url", "/roles"]) expect(response.body.status_message).toContain(pointer);
  });

  it("the client's versions URL unreachable: 3001", async () => {
    const response = await post(T_OPEN, validCredentials(`http://127.0.0.1:${closedPort}/versions`));
    expect(response.status).toBe(200);
    expect(response.body.status_code).toBe(3001);
    expect(response.text).not.toContain(TOKEN_B);
  });

  it("no mutual version: 3002, after calling the client with token B", async () => {
    fake.requests.length = 0;
    fake.versions = [{ version: "2.1.1", url: `${fake.url}/details/2.1.1` }];
    const response = await post(T_FAKE, validCredentials(`${fake.url}/versions`));
    expect(response.body.status_code).toBe(3002);
    expect(fake.requests).toEqual([{ method: "GET", url: "/versions", authorization: tokenHeader(TOKEN_B) }]);
  });

  it("the client's version details without a credentials endpoint: 3003", async () => {
    fake.requests.length = 0;
    fake.versions = [{ version: "2.3.0", url: `${fake.url}/details/2.3.0` }];
    fake.details["/details/2.3.0"] = {
      version: "2.3.0",
      endpoints: [{ identifier: "locations", role: "RECEIVER", url: `${fake.url}/locations` }],
    };
    const response = await post(T_FAKE, validCredentials(`${fake.url}/versions`));
    expect(response.body.status_code).toBe(3003);
    expect(fake.requests.map((r) => r.url)).toEqual(["/versions", "/details/2.3.0"]);
  });

  it("a failed registration leaves the partner unregistered, token A still valid", async () => {
    const versions = await api().get("/ocpi/versions").set("Authorization", auth(T_FAKE));
    expect(versions.status).toBe(200);
    expect((await gateway.registry.get("fake"))?.status).not.toBe("registered");
  });

  it.each([
    "http://localhost.invalid/ocpi/versions",
    "http://10.1.2.3/ocpi/versions",
    "http://169.254.169.254/latest/meta-data",
    "http://127.0.0.2:1/versions",
    "http://localhost:1/versions",
  ])("a url on a host the partner may not use (%s): 2001 before any request", async (url) => {
    fake.requests.length = 0;
    outboundAttempts.length = 0;
    const response = await post(T_FAKE, validCredentials(url));
    expect(response.status).toBe(200);
    expect(response.body.status_code).toBe(2001);
    expect(response.body.status_message).toMatch(/^url\b/);
    expect(fake.requests).toEqual([]);
    expect(outboundAttempts).toEqual([]);
  });

  it("PUT and DELETE before registering get HTTP 405", async () => {
    const put = await api().put("/ocpi/2.3.0/credentials").set("Authorization", auth(T_OPEN)).send(validCredentials(`http://127.0.0.1:${closedPort}/versions`));
    expect(put.status).toBe(405);
    expectEnvelope(put);
    const del = await api().delete("/ocpi/2.2.1/credentials").set("Authorization", auth(T_OPEN));
    expect(del.status).toBe(405);
    expectEnvelope(del);
    // and token A still works: nothing was consumed
    expect((await api().get("/ocpi/versions").set("Authorization", auth(T_OPEN))).status).toBe(200);
  });

  it("a registered partner POSTing again gets HTTP 405", async () => {
    const response = await post(registeredToken, validCredentials(versionsUrlOf(peer.config.server.port)));
    expect(response.status).toBe(405);
    expectEnvelope(response);
  });

  it("nothing above left a token in the logs", () => {
    const logs = logLines.join("");
    expect(logs.length).toBeGreaterThan(0);
    for (const token of [T_PEER, T_221, T_FAKE, T_OPEN, TOKEN_B, registeredToken]) expect(logs).not.toContain(token);
  });
});
