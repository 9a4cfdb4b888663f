import "reflect-metadata";
import http from "node:http";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { freePorts, ocpiRequest, type HttpResult } from "../support/gateway-process";
import { closeServer, listenOnLoopback } from "../support/loopback-server";
import { startEmspPartner, type EmspPartner } from "../support/emsp-partner";

/**
 * README "Proxy modules": what the gateway makes of a backend's answers it
 * cannot pass on as they are. The backend is a small OCPI 2.2.1 server on
 * loopback whose answers the test chooses: pages cut short by its own
 * X-Limit, an invalid Location, a tokens endpoint on another origin (which
 * must never be called), and a 401 for a token it does not know.
 */

const TOKEN = "csms-token-for-the-gateway";
const TO = { "OCPI-to-country-code": "NL", "OCPI-to-party-id": "GWY" };

const location = (n: number) => ({
  country_code: "NL",
  party_id: "GWY",
  id: `LOC${n}`,
  publish: true,
  address: "Stationsplein 1",
  city: "Utrecht",
  country: "NLD",
  coordinates: { latitude: "52.08935", longitude: "5.11011" },
  time_zone: "Europe/Amsterdam",
  last_updated: `2026-01-0${n}T00:00:00Z`,
});
const LOCATIONS = [1, 2, 3, 4, 5].map(location);

let backendPort: number;
let elsewherePort: number;
const seen: string[] = [];
/** the headers of the last request the backend took */
let lastHeaders: http.IncomingHttpHeaders = {};
const elsewhere: string[] = [];
let backend: http.Server;
let stranger: http.Server;
let gateway: Gateway;
let emsp: EmspPartner;
let url: string;

const envelope = (data: unknown, status_code = 1000) => JSON.stringify({ status_code, timestamp: "2026-01-01T00:00:00Z", data });

const answer = (req: http.IncomingMessage, res: http.ServerResponse): void => {
  const target = new URL(req.url!, `http://127.0.0.1:${backendPort}`);
  seen.push(`${req.method} ${target.pathname}${target.search}`);
  lastHeaders = req.headers;
  res.setHeader("Content-Type", "application/json");
  if (req.headers.authorization !== `Token ${Buffer.from(TOKEN).toString("base64")}`) {
    res.statusCode = 401;
    res.end(envelope(undefined, 2000));
    return;
  }
  const base = `http://127.0.0.1:${backendPort}/ocpi`;
  if (target.pathname === "/ocpi/versions") return void res.end(envelope([{ version: "2.2.1", url: `${base}/2.2.1` }]));
  if (target.pathname === "/ocpi/2.2.1")
    return void res.end(
      envelope({
        version: "2.2.1",
        endpoints: [
          { identifier: "locations", role: "SENDER", url: `${base}/2.2.1/locations` },
          // another origin: left out by the outbound URL policy, never called
          { identifier: "tokens", role: "RECEIVER", url: `http://127.0.0.1:${elsewherePort}/tokens` },
        ],
      }),
    );
  if (target.pathname === "/ocpi/2.2.1/locations") {
    // its own cap: two per page, whatever was asked
    const offset = Number(target.searchParams.get("offset") ?? 0);
    const limit = Math.min(Number(target.searchParams.get("limit") ?? 2), 2);
    res.setHeader("X-Total-Count", String(LOCATIONS.length));
    res.setHeader("X-Limit", "2");
    return void res.end(envelope(LOCATIONS.slice(offset, offset + limit)));
  }
  if (target.pathname === "/ocpi/2.2.1/locations/BAD") return void res.end(envelope({ ...location(9), id: "BAD", coordinates: { latitude: "north" } }));
  res.statusCode = 404;
  res.end(envelope(undefined, 2003));
};

const get = (path: string): Promise<HttpResult> => ocpiRequest("GET", `${url}/ocpi/2.3.0${path}`, { token: emsp.tokenToCpo, headers: TO });

const startGateway = async (port: number, emspPort: number, token: string): Promise<Gateway> => {
  const gw = await Gateway.create(
    testGatewayConfig({
      port,
      modules: { locations: { adapter: "csms", roles: ["SENDER"] }, tokens: { adapter: "csms", roles: ["RECEIVER"] } },
      adapters: { csms: { type: "proxy", base_url: `http://127.0.0.1:${backendPort}/ocpi/versions`, token } },
      partners: [{ id: "emsp", token_a: "gateway-token-a-for-emsp", versions_url: versionsUrlOf(emspPort) }],
    }),
    { logger: pino({ level: "silent" }) },
  );
  await gw.listen();
  return gw;
};

beforeAll(async () => {
  const [gatewayPort, emspPort, b, e] = await freePorts(4);
  backendPort = b;
  elsewherePort = e;
  backend = http.createServer(answer);
  await listenOnLoopback(backend, backendPort);
  stranger = http.createServer((req, res) => {
    elsewhere.push(`${req.method} ${req.url}`);
    res.end(envelope(null));
  });
  await listenOnLoopback(stranger, elsewherePort);
  gateway = await startGateway(gatewayPort, emspPort, TOKEN);
  url = `http://127.0.0.1:${gatewayPort}`;
  emsp = await startEmspPartner({ port: emspPort, cpoUrl: url, tokenA: "gateway-token-a-for-emsp", partnerId: "gateway" });
}, 60_000);

afterAll(async () => {
  await emsp?.close();
  await gateway?.close();
  await closeServer(backend);
  await closeServer(stranger);
  removeTempDirs();
});

it("asks on while the backend's X-Limit cuts a page short, so the partner's page is as long as it asked", async () => {
  seen.length = 0;
  const page = await ocpiRequest("GET", `${url}/ocpi/2.3.0/sender/locations?limit=4`, {
    token: emsp.tokenToCpo,
    headers: { ...TO, "X-Correlation-ID": "correlation-of-the-partner" },
  });
  expect(page.body.data.map((l: { id: string }) => l.id)).toEqual(["LOC1", "LOC2", "LOC3", "LOC4"]);
  expect(page.headers["x-total-count"]).toBe("5");
  expect(seen.filter((s) => s.startsWith("GET /ocpi/2.2.1/locations?"))).toEqual([
    "GET /ocpi/2.2.1/locations?offset=0&limit=4",
    "GET /ocpi/2.2.1/locations?offset=2&limit=2",
  ]);
  // the backend is told which of our parties the call is for, and the partner's correlation id
  expect(lastHeaders).toMatchObject({ "ocpi-to-country-code": "NL", "ocpi-to-party-id": "GWY", "x-correlation-id": "correlation-of-the-partner" });
});

it("answers 502 / 3001 naming the fields for an invalid object the backend serves", async () => {
  const bad = await get("/sender/locations/BAD");
  expect(bad.status).toBe(502);
  expect(bad.body.status_code).toBe(3001);
  expect(bad.body.status_message).toContain("/coordinates/latitude");
});

it("never calls an endpoint the backend lists on another origin", async () => {
  const put = await ocpiRequest("PUT", `${url}/ocpi/2.3.0/receiver/tokens/DE/EMS/TOK1`, { token: emsp.tokenToCpo, headers: TO, body: emsp.token("TOK1") });
  expect(put.body.status_code).toBe(3001);
  expect(put.body.status_message).toContain("offers no tokens RECEIVER interface");
  expect(elsewhere).toEqual([]);
});

it("answers 503 / 3000 when the backend refuses the gateway's token, naming the backend by its host only", async () => {
  const [port, emspPort] = await freePorts(2);
  const wrong = await startGateway(port, emspPort, "a-token-the-backend-never-issued");
  try {
    const other = await startEmspPartner({ port: emspPort, cpoUrl: `http://127.0.0.1:${port}`, tokenA: "gateway-token-a-for-emsp", partnerId: "gateway" });
    try {
      const refused = await ocpiRequest("GET", `http://127.0.0.1:${port}/ocpi/2.3.0/sender/locations`, { token: other.tokenToCpo, headers: TO });
      expect(refused.status).toBe(503);
      expect(refused.body.status_code).toBe(3000);
      expect(refused.body.status_message).toBe(`127.0.0.1:${backendPort} backend unavailable; retry later`);
    } finally {
      await other.close();
    }
  } finally {
    await wrong.close();
  }
});
