import "reflect-metadata";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import request from "supertest";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { recordReliability } from "../support/reliability-report";

/**
 * README "Outbound URL policy" end to end: a gateway calls partner listeners
 * on 127.0.0.1, and "internal" listeners (127.0.0.2, or another port of
 * 127.0.0.1) stand for the operator's network, which partners try to steer
 * the gateway's calls into. An internal listener that records no request
 * proves the call was never made.
 */

interface Seen {
  method: string;
  path: string;
  authorization?: string;
}

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** A node:http server answering by exact method and path (query left out); anything else is 404. */
class Listener {
  readonly seen: Seen[] = [];
  readonly routes = new Map<string, (seen: Seen) => Answer>();
  private readonly server = http.createServer((req, res) => {
    const seen = { method: req.method!, path: req.url!, authorization: req.headers.authorization };
    this.seen.push(seen);
    req.resume();
    req.on("end", () => {
      const route = this.routes.get(`${req.method} ${req.url!.split("?")[0]}`);
      const answer = route ? route(seen) : { status: 404, body: { status_code: 2001, status_message: "no such path", timestamp: now() } };
      res.writeHead(answer.status ?? 200, { "Content-Type": "application/json", ...answer.headers });
      res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
    });
  });
  url = "";

  constructor(private readonly host: string) {}

  async listen(port = 0): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(port, this.host, resolve));
    this.url = `http://${this.host}:${(this.server.address() as AddressInfo).port}`;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  on(method: string, path: string, answer: (seen: Seen) => Answer): void {
    this.routes.set(`${method} ${path}`, answer);
  }

  /** Serves versions and 2.3.0 details under `prefix`: a credentials endpoint plus `endpoints`, advertised under `base`. */
  serveVersions(prefix: string, endpoints: { identifier: string; role: string; url: string }[], detailsUrl?: string, base = this.url): void {
    this.on("GET", `${prefix}/versions`, () => ({ body: ok([{ version: "2.3.0", url: detailsUrl ?? `${base}${prefix}/details` }]) }));
    this.on("GET", `${prefix}/details`, () => ({
      body: ok({ version: "2.3.0", endpoints: [{ identifier: "credentials", role: "RECEIVER", url: `${base}${prefix}/credentials` }, ...endpoints] }),
    }));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const now = () => new Date().toISOString();
const ok = (data: unknown) => ({ data, status_code: 1000, timestamp: now() });
const b64 = (token: string) => `Token ${Buffer.from(token).toString("base64")}`;
const role = (party_id: string, r = "EMSP") => ({ role: r, country_code: "DE", party_id, business_details: { name: party_id } });
const stamp = "2025-01-01T00:00:00Z";
const ADMIN = "admin-token-outbound-policy-0123";

const waitFor = async (what: string, check: () => boolean, ms = 5000): Promise<void> => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const partner = new Listener("127.0.0.1");
/** the operator's network: another address of the loopback range, and another port of 127.0.0.1 */
const internalHost = new Listener("127.0.0.2");
const internalPort = new Listener("127.0.0.1");
const logs: string[] = [];
let gateway: Gateway;
let api: ReturnType<typeof request>;

beforeAll(async () => {
  await Promise.all([partner.listen(), internalHost.listen(), internalPort.listen()]);
  const [port] = await freePorts(1);
  const p = partner.url;
  gateway = await Gateway.create(
    testGatewayConfig({
      port,
      modules: { commands: { adapter: "local" }, locations: { adapter: "local" }, cdrs: { adapter: "local" }, tokens: { adapter: "local" } },
      adapters: { local: { simulator: { outcome: "ACCEPTED", delay_ms: 20 } } },
      server: { admin_token: ADMIN },
      partners: [
        { id: "redirecting", token_a: "token-a-redirecting", versions_url: `${p}/redirect/versions` },
        { id: "details-port", token_a: "token-a-details-port", versions_url: `${p}/port/versions` },
        { id: "details-host", token_a: "token-a-details-host", versions_url: `${p}/host/versions` },
        { id: "details-name", token_a: "token-a-details-name", versions_url: `${p}/name/versions` },
        { id: "mixed", token_a: "token-a-mixed", versions_url: `${p}/mixed/versions`, modules: ["credentials"] },
        { id: "open", token_a: "token-a-open" },
        { id: "default-port", token_a: "token-a-default-port", callback_hosts: ["127.0.0.1"] },
        { id: "by-name", token_a: "token-a-by-name" },
        { id: "by-name-allowed", token_a: "token-a-by-name-allowed", callback_hosts: [`localhost:${partner.port}`] },
        { id: "embedded-put", token_a: "token-a-embedded-put", callback_hosts: [`127.0.0.1:${partner.port}`] },
        { id: "emsp", token_a: "token-a-emsp", versions_url: `${p}/emsp/versions` },
        { id: "link", token_a: "token-a-link", versions_url: `${p}/link/versions` },
        { id: "slash", token_a: "token-a-slash", versions_url: `${p}/slash/versions` },
      ],
    }),
    { logger: pino({ level: "warn" }, { write: (line: string) => void logs.push(line) }) },
  );
  // listening starts the outbox worker, which delivers command results and pushes
  await gateway.listen();
  api = request(gateway.app.callback());
});

let attempts = 0;
afterEach(() => void attempts++);

afterAll(async () => {
  // Every SSRF attempt of this file, for test/RELIABILITY.md: a request reaching an internal listener is a loss.
  recordReliability("SSRF attempts (outbound URL policy)", {
    cases: attempts,
    faults: 0,
    losses: internalHost.seen.length + internalPort.seen.length,
    notes: ["redirects (302, 307), details and endpoints on other origins, private addresses, host names resolving to loopback, Link next across origins"],
  });
  await gateway?.close();
  await Promise.all([partner.close(), internalHost.close(), internalPort.close()]);
  removeTempDirs();
});

/** The partner registers with us (credentials POST with its token A), handing over `url` and token B. */
const registerWithUs = (tokenA: string, url: string, tokenB: string, party: string, r = "EMSP") =>
  api.post("/ocpi/2.3.0/credentials").set("Authorization", b64(tokenA)).send({ token: tokenB, url, roles: [role(party, r)] });

/** The partner's credentials endpoint under `prefix` answers our POST with its own credentials. */
const acceptOurRegistration = (prefix: string, party: string) =>
  partner.on("POST", `${prefix}/credentials`, () => ({ body: ok({ token: `token-c${prefix.replace("/", "-")}`, url: `${partner.url}${prefix}/versions`, roles: [role(party)] }) }));

describe("redirects are never followed", () => {
  it("a versions URL answering 302 to an internal address: the registration fails and the internal listener gets no request", async () => {
    partner.on("GET", "/redirect/versions", () => ({ status: 302, headers: { Location: `${internalHost.url}/versions?token=x` } }));
    await expect(gateway.credentials.register("redirecting")).rejects.toThrow(
      `GET ${partner.url}/redirect/versions answered HTTP 302: the redirect to ${internalHost.url}/versions was not followed`,
    );
    expect(internalHost.seen).toEqual([]);
    expect(partner.seen.filter((s) => s.path === "/redirect/versions")).toEqual([
      expect.objectContaining({ method: "GET", authorization: b64("token-a-redirecting") }),
    ]);
  });

  it("a response_url answering 307: the CommandResult is POSTed once and never re-POSTed to the internal address", async () => {
    partner.serveVersions("/emsp", []);
    const registered = await registerWithUs("token-a-emsp", `${partner.url}/emsp/versions`, "token-b-emsp", "EMS");
    expect(registered.body.status_code).toBe(1000);
    partner.on("POST", "/emsp/callback", () => ({ status: 307, headers: { Location: `${internalHost.url}/callback` } }));

    const command = await api
      .post("/ocpi/2.3.0/receiver/commands/CANCEL_RESERVATION")
      .set("Authorization", b64(registered.body.data.token))
      .set({ "OCPI-from-country-code": "DE", "OCPI-from-party-id": "EMS", "OCPI-to-country-code": "NL", "OCPI-to-party-id": "GWY" })
      .send({ response_url: `${partner.url}/emsp/callback`, reservation_id: "R1" });
    expect(command.body).toMatchObject({ status_code: 1000, data: { result: "ACCEPTED" } });

    await waitFor("the CommandResult", () => partner.seen.some((s) => s.path === "/emsp/callback"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(partner.seen.filter((s) => s.path === "/emsp/callback").map((s) => s.method)).toEqual(["POST"]);
    expect(internalHost.seen).toEqual([]);
  });
});

describe("version details and endpoints outside the policy", () => {
  it.each([
    ["another port of the same host", "details-port", "/port", () => `${internalPort.url}/details`, () => `origin ${internalPort.url} is not allowed`],
    ["another host", "details-host", "/host", () => `${internalHost.url}/details`, () => "host 127.0.0.2 is not allowed"],
    ["a name resolving to loopback instead of the configured 127.0.0.1", "details-name", "/name", () => `http://localhost:${partner.port}/name/details`, () => "host localhost is not allowed"],
  ])("a details URL on %s is not fetched with the partner's token", async (_what, id, prefix, detailsUrl, problem) => {
    partner.serveVersions(prefix, [], detailsUrl());
    const before = partner.seen.length;
    await expect(gateway.credentials.register(id)).rejects.toThrow(`refused by the outbound URL policy: URL ${problem()}`);
    expect(partner.seen.slice(before).map((s) => s.path)).toEqual([`${prefix}/versions`]);
    expect(internalHost.seen).toEqual([]);
    expect(internalPort.seen).toEqual([]);
  });

  it("a module endpoint outside the policy is left out at discovery, with a warning naming neither token", async () => {
    partner.serveVersions("/mixed", [
      { identifier: "locations", role: "RECEIVER", url: `${partner.url}/mixed/locations` },
      { identifier: "tariffs", role: "RECEIVER", url: `${internalHost.url}/tariffs?secret=1` },
    ]);
    acceptOurRegistration("/mixed", "MIX");
    const record = await gateway.credentials.register("mixed");
    expect(record.endpoints.map((e) => e.identifier)).toEqual(["credentials", "locations"]);
    const warning = logs.map((l) => JSON.parse(l)).find((l) => l.partner === "mixed" && l.module === "tariffs");
    expect(warning).toMatchObject({
      msg: "partner endpoint outside the outbound URL policy; left out: URL host 127.0.0.2 is not allowed for this partner (see partners[].callback_hosts)",
      url: `${internalHost.url}/tariffs`,
    });
    expect(logs.join("\n")).not.toMatch(/token-a-mixed|token-c-mixed/);
    expect(internalHost.seen).toEqual([]);
  });
});

describe("a partner with no versions_url in config (the restrictive default)", () => {
  it("registering from a private address not in callback_hosts is refused with 2001 and nothing is called", async () => {
    const before = partner.seen.length;
    const response = await registerWithUs("token-a-open", `${partner.url}/open/versions`, "token-b-open", "OPN");
    expect(response.body).toMatchObject({ status_code: 2001, status_message: "url host 127.0.0.1 is not a public address (see partners[].callback_hosts)" });
    expect(partner.seen.length).toBe(before);
  });

  it("a callback_hosts entry without a port names only the scheme's default port", async () => {
    const before = partner.seen.length;
    const response = await registerWithUs("token-a-default-port", `${partner.url}/open/versions`, "token-b-default-port", "DPT");
    expect(response.body).toMatchObject({ status_code: 2001, status_message: "url host 127.0.0.1 is not a public address (see partners[].callback_hosts)" });
    expect(partner.seen.length).toBe(before);
  });

  it("a host name named in callback_hosts with its port may resolve to loopback", async () => {
    const named = `http://localhost:${partner.port}`;
    partner.serveVersions("/named", [], undefined, named);
    const response = await registerWithUs("token-a-by-name-allowed", `${named}/named/versions`, "token-b-by-name-allowed", "BNA");
    expect(response.body.status_code).toBe(1000);
    expect(partner.seen.filter((s) => s.path === "/named/versions").map((s) => s.authorization)).toEqual([b64("token-b-by-name-allowed")]);
  });

  it("the same host name, not named for this partner, is resolved at connect time and refused; the named partner's open connection is not reused", async () => {
    const before = partner.seen.length;
    const response = await registerWithUs("token-a-by-name", `http://localhost:${partner.port}/named/versions`, "token-b-by-name", "BNM");
    expect(response.body.status_code).toBe(3001);
    expect(response.body.status_message).toContain("refused by the outbound URL policy: host localhost resolves to an address that is not public");
    expect(response.body.status_message).not.toContain("127.0.0.1");
    expect(partner.seen.length).toBe(before);
  });
});

/**
 * An IPv6 host carrying a refused IPv4 address (README "Outbound URL policy",
 * the embedded forms), as URL parsing writes it. The mapped forms would reach
 * the partner listener on 127.0.0.1: it records nothing.
 */
describe("a partner with no versions_url registering from an IPv6 form of a refused IPv4 address", () => {
  it.each([
    ["IPv4-compatible, dotted", "[::127.0.0.1]", "[::7f00:1]"],
    ["IPv4-compatible, hex", "[::7f00:1]", "[::7f00:1]"],
    ["IPv4-mapped, long form", "[0:0:0:0:0:ffff:7f00:1]", "[::ffff:7f00:1]"],
    ["IPv4-mapped, dotted", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"],
    ["NAT64 well-known prefix", "[64:ff9b::7f00:1]", "[64:ff9b::7f00:1]"],
    ["NAT64 local-use prefix", "[64:ff9b:1::10.0.0.1]", "[64:ff9b:1::a00:1]"],
    ["6to4", "[2002:7f00:1::]", "[2002:7f00:1::]"],
    ["Teredo client", "[2001:0:4136:e378:8000:63bf:80ff:fffe]", "[2001:0:4136:e378:8000:63bf:80ff:fffe]"],
    ["Teredo server", "[2001:0:a00:1:8000:63bf:f7f7:fbfb]", "[2001:0:a00:1:8000:63bf:f7f7:fbfb]"],
  ])("%s %s: a credentials POST is refused with 2001 before any connection, nothing stored", async (_form, host, written) => {
    const before = partner.seen.length;
    const response = await registerWithUs("token-a-open", `http://${host}:${partner.port}/open/versions`, "token-b-open", "OPN");
    expect(response.body).toMatchObject({ status_code: 2001, status_message: `url host ${written} is not a public address (see partners[].callback_hosts)` });
    expect(partner.seen.length).toBe(before);
    const record = await gateway.registry.get("open");
    expect([record?.status, record?.versionsUrl]).toEqual(["pending", undefined]);
  });

  it("a zone id is no URL host: 2001, nothing called", async () => {
    const before = partner.seen.length;
    const response = await registerWithUs("token-a-open", `http://[fe80::1%25lo]:${partner.port}/open/versions`, "token-b-open", "OPN");
    expect(response.body.status_code).toBe(2001);
    expect(partner.seen.length).toBe(before);
  });

  it("a credentials PUT moving a registered partner onto one is refused with 2001; it keeps its versions URL and token", async () => {
    partner.serveVersions("/embedded", []);
    const registered = await registerWithUs("token-a-embedded-put", `${partner.url}/embedded/versions`, "token-b-embedded-put", "EPT");
    expect(registered.body.status_code).toBe(1000);
    const before = partner.seen.length;
    const response = await api
      .put("/ocpi/2.3.0/credentials")
      .set("Authorization", b64(registered.body.data.token))
      .send({ token: "token-b2-embedded-put", url: `http://[64:ff9b::7f00:1]:${partner.port}/embedded/versions`, roles: [role("EPT")] });
    expect(response.body).toMatchObject({ status_code: 2001, status_message: "url host [64:ff9b::7f00:1] is not a public address (see partners[].callback_hosts)" });
    expect(partner.seen.length).toBe(before);
    expect(await gateway.registry.get("embedded-put")).toMatchObject({
      status: "registered",
      versionsUrl: `${partner.url}/embedded/versions`,
      tokenToPartner: "token-b-embedded-put",
    });
  });
});

describe("list pulls", () => {
  it("a Link next to another origin is not followed: the pull fails and the internal listener gets no request", async () => {
    partner.serveVersions("/link", [{ identifier: "locations", role: "SENDER", url: `${partner.url}/link/locations` }]);
    acceptOurRegistration("/link", "LNK");
    partner.on("GET", "/link/locations", () => ({ headers: { Link: `<${internalHost.url}/link/locations?offset=1>; rel="next"` }, body: ok([]) }));
    await gateway.credentials.register("link");
    const pull = await api.post("/admin/v1/sync/link/locations?full=true").set("Authorization", `Bearer ${ADMIN}`);
    expect(pull.status).toBe(502);
    expect(pull.body.status_code).toBe(3001);
    expect(pull.body.status_message).toContain("refused by the outbound URL policy: URL host 127.0.0.2 is not allowed");
    expect(partner.seen.filter((s) => s.path.startsWith("/link/locations"))).toHaveLength(1);
    expect(internalHost.seen).toEqual([]);
  });
});

describe("endpoint URLs are called as advertised (issue #9)", () => {
  const location = {
    country_code: "NL",
    party_id: "GWY",
    id: "LOC1",
    publish: true,
    address: "Street 1",
    city: "Utrecht",
    country: "NLD",
    coordinates: { latitude: "52.090730", longitude: "5.121420" },
    time_zone: "Europe/Amsterdam",
    last_updated: stamp,
  };
  const cdr = {
    country_code: "NL",
    party_id: "GWY",
    id: "CDR-1",
    start_date_time: stamp,
    end_date_time: "2025-01-01T01:00:00Z",
    cdr_token: { country_code: "DE", party_id: "SLS", uid: "U1", type: "RFID", contract_id: "DE-SLS-C1" },
    auth_method: "WHITELIST",
    cdr_location: {
      id: "LOC1",
      address: "Street 1",
      city: "Utrecht",
      country: "NLD",
      coordinates: { latitude: "52.090730", longitude: "5.121420" },
      evse_uid: "E1",
      evse_id: "NL*GWY*E1",
      connector_id: "1",
      connector_standard: "IEC_62196_T2",
      connector_format: "SOCKET",
      connector_power_type: "AC_3_PHASE",
    },
    currency: "EUR",
    charging_periods: [{ start_date_time: stamp, dimensions: [{ type: "ENERGY", volume: 5 }] }],
    total_cost: { before_taxes: 2 },
    total_energy: 5,
    total_time: 1,
    last_updated: stamp,
  };

  it("a trailing slash is kept for lists and CDR POSTs, and object paths are appended after it without a double slash", async () => {
    // this partner's framework answers 404 on every path without its trailing slash
    partner.serveVersions("/slash", [
      { identifier: "locations", role: "RECEIVER", url: `${partner.url}/slash/locations/` },
      { identifier: "cdrs", role: "RECEIVER", url: `${partner.url}/slash/cdrs/` },
      { identifier: "tokens", role: "SENDER", url: `${partner.url}/slash/tokens/` },
    ]);
    acceptOurRegistration("/slash", "SLS");
    partner.on("PUT", "/slash/locations/NL/GWY/LOC1", () => ({ body: ok(null) }));
    partner.on("POST", "/slash/cdrs/", () => ({ status: 201, headers: { Location: `${partner.url}/slash/cdrs/CDR-1` }, body: ok(null) }));
    partner.on("GET", "/slash/tokens/", () => ({ body: ok([]) }));
    await gateway.credentials.register("slash");

    const pull = await api.post("/admin/v1/sync/slash/tokens?full=true").set("Authorization", `Bearer ${ADMIN}`);
    expect(pull.body).toMatchObject({ status_code: 1000, data: { pages: 1, objects: 0 } });
    for (const event of [
      { module: "locations", owner: { country_code: "NL", party_id: "GWY" }, path: ["LOC1"], kind: "upsert", object: location },
      { module: "cdrs", owner: { country_code: "NL", party_id: "GWY" }, path: ["CDR-1"], kind: "upsert", object: cdr },
    ]) {
      const posted = await api.post("/admin/v1/events").set("Authorization", `Bearer ${ADMIN}`).send(event);
      expect(posted.body.status_code).toBe(1000);
    }
    const slash = () => partner.seen.filter((s) => s.path.startsWith("/slash/") && !/\/(versions|details|credentials)$/.test(s.path));
    await waitFor("the Location PUT and the CDR POST", () => slash().length >= 3);
    expect(slash().map((s) => `${s.method} ${s.path.split("?")[0]}`).sort()).toEqual(["GET /slash/tokens/", "POST /slash/cdrs/", "PUT /slash/locations/NL/GWY/LOC1"]);
  });
});
