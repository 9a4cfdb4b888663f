import "reflect-metadata";
import request from "supertest";
import { stringify } from "yaml";
import { Gateway } from "../../app/gateway";
import { parseConfig } from "../../config/load-config";
import { ResponseCache } from "../../core/cache/response-cache";
import { CredentialsPlugin } from "../../plugins/credentials/module";
import { LocationsPlugin } from "../../plugins/locations/module";
import { LocationsBackend, testLocation, type TestPartner } from "../support/counting-locations";
import { gatewayConfigData, removeTempDirs } from "../support/gateway-config";
import { captureLogs } from "../support/log-capture";

/**
 * Issue #11: a cached list GET is answered before Koa (core/host/cached-get.ts)
 * once its answer is cached and rendered. What goes out must be what the
 * kernel sends (bytes, headers, status), and every check of the kernel must
 * still hold: a request that fails one is answered by the kernel as before.
 */

const LIST = "/ocpi/2.3.0/sender/locations";
const EMSP: TestPartner = { id: "emsp", version: "2.3.0", role: { country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "EMS" } } };
const OTHER: TestPartner = { id: "other", version: "2.3.0", role: { country_code: "FR", party_id: "OTH", role: "EMSP", business_details: { name: "OTH" } } };

const logs = captureLogs("info");
const auth: Record<string, string> = {};
let gateway: Gateway;
let http: ReturnType<typeof request>;
let served: jest.SpyInstance;

beforeAll(async () => {
  const backend = new LocationsBackend();
  for (let n = 1; n <= 5; n++) backend.store(testLocation(n));
  const data = gatewayConfigData({
    port: 9,
    modules: { locations: { adapter: "counting" } },
    adapters: { counting: {} },
    partners: [EMSP, OTHER].map((p) => ({ id: p.id, versions: [p.version] })),
  });
  const config = parseConfig(stringify(data), {}, "<cached GET test config>");
  gateway = await Gateway.create(config, { logger: logs.logger, plugins: [CredentialsPlugin, LocationsPlugin], adapters: [backend.factory()] });
  for (const p of [EMSP, OTHER]) {
    const token = await gateway.registry.issueToken(p.id);
    await gateway.registry.recordRegistration(p.id, { version: p.version, versionsUrl: "http://127.0.0.1:9/versions", endpoints: [], roles: [p.role], tokenToPartner: "unused" });
    auth[p.id] = `Token ${Buffer.from(token).toString("base64")}`;
  }
  http = request(gateway.app.callback());
  served = jest.spyOn(gateway.container.resolve(ResponseCache), "peekServed");
});

afterAll(async () => {
  await gateway.close();
  removeTempDirs();
});

const accessLines = () => logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === "request");

const get = (path: string, headers: Record<string, string> = {}, who = EMSP.id) => {
  const req = http.get(path).set("Authorization", auth[who]);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req;
};

/** Every header but those that differ per request. */
const stable = (headers: Record<string, string>) => {
  const { date: _date, "x-request-id": _id, "x-correlation-id": _correlation, ...rest } = headers;
  return rest;
};

describe("cached GETs answered before Koa", () => {
  it("send the kernel's status, bytes and headers, with the request's own ids echoed", async () => {
    const path = `${LIST}?limit=2&date_from=2020-01-01T00:00:00Z`;
    const first = await get(path);
    const before = served.mock.calls.length;
    const again = await get(path, { "X-Request-ID": "fast-1", "X-Correlation-ID": "corr-1" });
    expect(served.mock.calls.length).toBe(before + 1);
    expect(again.status).toBe(first.status);
    expect(stable(again.headers)).toEqual(stable(first.headers));
    expect(again.headers.link).toContain("date_from=2020-01-01T00%3A00%3A00Z&offset=2&limit=2");
    expect([again.headers["x-request-id"], again.headers["x-correlation-id"]]).toEqual(["fast-1", "corr-1"]);
    const { timestamp: _t1, ...body1 } = JSON.parse(first.text);
    const { timestamp: _t2, ...body2 } = JSON.parse(again.text);
    expect(body2).toEqual(body1);
  });

  it("write the kernel's access line, with the partner and ids", async () => {
    await get(`${LIST}?limit=3`);
    await get(`${LIST}?limit=3`, { "X-Request-ID": "fast-log-1" });
    const lines = accessLines().filter((l) => l.requestId === "fast-log-1");
    expect(lines).toEqual([
      expect.objectContaining({ partner: EMSP.id, module: "locations", interface: "SENDER", correlationId: "fast-log-1", method: "GET", path: LIST, status: 200, statusCode: 1000 }),
    ]);
  });

  it("swap the routing headers, and leave a request that fails a check to the kernel", async () => {
    await get(`${LIST}?limit=4`);
    const routed = await get(`${LIST}?limit=4`, { "OCPI-from-country-code": "DE", "OCPI-from-party-id": "EMS", "OCPI-to-country-code": "NL", "OCPI-to-party-id": "GWY" });
    expect(routed.headers).toEqual(expect.objectContaining({ "ocpi-from-country-code": "NL", "ocpi-from-party-id": "GWY", "ocpi-to-country-code": "DE", "ocpi-to-party-id": "EMS" }));
    const before = served.mock.calls.length;
    // another partner's party, a malformed header, an unknown token, a party not served here: the kernel's answers
    expect((await get(`${LIST}?limit=4`, { "OCPI-from-country-code": "FR", "OCPI-from-party-id": "OTH" })).body.status_code).toBe(2001);
    expect((await get(`${LIST}?limit=4`, { "OCPI-from-country-code": "DE", "OCPI-from-party-id": "E" })).body.status_code).toBe(2001);
    expect((await http.get(`${LIST}?limit=4`).set("Authorization", "Token bm9wZQ==")).status).toBe(401);
    expect((await get(`${LIST}?limit=4`, { "OCPI-to-country-code": "NL", "OCPI-to-party-id": "XXX" })).body.status_code).toBe(2001);
    expect((await get(`${LIST}?limit=x`)).body.status_code).toBe(2001);
    expect(served.mock.calls.length).toBe(before);
  });
});
