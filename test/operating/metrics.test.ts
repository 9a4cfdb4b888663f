import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, tempDir, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { captureLogs } from "../support/log-capture";
import { numberedCpoLocation } from "../support/ocpi-objects";
import { parsePrometheus, samplesOf, sumOf, type Sample } from "../support/prometheus-text";
import { LocationsClient } from "../../plugins/locations/client";

/**
 * Issue #14: after a scripted exchange between two gateways (an eMSP
 * registers with a CPO, pulls its Locations twice, asks for one that does
 * not exist; a stranger calls without a token), the figures scraped from
 * both match the traffic exactly: requests by partner, module, interface,
 * method and status; calls to partners; cache hits and misses; adapter calls.
 */

const TOKEN_A = "metrics-token-A-0123456789";
const ADMIN = "metrics-admin-token-0123456789";
const CPO = { country_code: "NL", party_id: "CPO", role: "CPO" as const };
const EMSP = { country_code: "DE", party_id: "EMS", role: "EMSP" as const };

const location = numberedCpoLocation;

const drain = async <T>(pages: AsyncGenerator<T[]>): Promise<T[]> => {
  const all: T[] = [];
  for await (const page of pages) all.push(...page);
  return all;
};

describe("Prometheus /metrics after a scripted exchange", () => {
  let cpo: Gateway;
  let emsp: Gateway;
  let cpoUrl: string;
  let emspMetricsPort: number;
  const logs = captureLogs("info");

  const scrape = async (url: string, token?: string): Promise<Sample[]> => {
    const answer = await ocpiRequest("GET", url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^text\/plain/);
    return parsePrometheus(answer.text);
  };

  beforeAll(async () => {
    const [cpoPort, emspPort, metricsPort] = await freePorts(3);
    cpoUrl = `http://127.0.0.1:${cpoPort}`;
    emspMetricsPort = metricsPort;
    const seed = path.join(tempDir("ocpi-metrics-"), "cpo.json");
    fs.writeFileSync(seed, JSON.stringify({ locations: [1, 2, 3].map(location) }));
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: CPO,
        modules: { locations: { adapter: "local" } },
        adapters: { local: { seed } },
        // two per page: the pull is two pages
        server: { max_page_limit: 2, admin_token: ADMIN },
        partners: [{ id: "emsp", token_a: TOKEN_A, versions_url: versionsUrlOf(emspPort) }],
      }),
      { logger: logs.logger },
    );
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules: { locations: { adapter: "local" } },
        // the eMSP's metrics on a port of their own, without auth
        server: { admin_token: ADMIN, metrics: { port: metricsPort, host: "127.0.0.1" } },
        partners: [{ id: "cpo", token_a: TOKEN_A, versions_url: versionsUrlOf(cpoPort) }],
      }),
      { logger: logs.logger },
    );
    await cpo.listen();
    await emsp.listen();

    // the script
    await emsp.credentials.register("cpo");
    const client = new LocationsClient(emsp.partnerClient);
    expect(await drain(client.list("cpo"))).toHaveLength(3); // 2 pages, both cache misses
    expect(await drain(client.list("cpo"))).toHaveLength(3); // 2 pages, both cache hits
    expect(await client.get("cpo", "NOPE")).toBeUndefined(); // HTTP 404, 2003
    expect((await ocpiRequest("GET", `${cpoUrl}/ocpi/2.3.0/sender/locations`)).status).toBe(401); // no token
  });

  afterAll(async () => {
    await Promise.all([cpo?.close(), emsp?.close()]);
    removeTempDirs();
  });

  it("needs the admin token on the gateway's port; with server.metrics.port it is there without auth, and not on the gateway's port", async () => {
    expect((await ocpiRequest("GET", `${cpoUrl}/metrics`)).status).toBe(401);
    expect((await ocpiRequest("GET", `${cpoUrl}/metrics`, { headers: { Authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
    const emspPort = emsp.config.server.port;
    expect((await ocpiRequest("GET", `http://127.0.0.1:${emspPort}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(404);
    expect((await ocpiRequest("GET", `http://127.0.0.1:${emspMetricsPort}/metrics`)).status).toBe(200);
  });

  it("counts the CPO's requests exactly, by partner, module, interface, method and status", async () => {
    const samples = await scrape(`${cpoUrl}/metrics`, ADMIN);
    const requests = samplesOf(samples, "ocpi_requests_total")
      .filter((s) => s.labels.module !== "other") // the scrapes themselves
      .map((s) => ({ ...s.labels, count: s.value }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    const expected = [
      // the handshake: token A on versions, version details and credentials
      { partner: "emsp", module: "versions", interface: "", method: "GET", http_status: "200", status_code: "1000", count: 2 },
      { partner: "emsp", module: "credentials", interface: "", method: "POST", http_status: "200", status_code: "1000", count: 1 },
      // 2 pulls of 2 pages
      { partner: "emsp", module: "locations", interface: "SENDER", method: "GET", http_status: "200", status_code: "1000", count: 4 },
      { partner: "emsp", module: "locations", interface: "SENDER", method: "GET", http_status: "404", status_code: "2003", count: 1 },
      { partner: "none", module: "locations", interface: "SENDER", method: "GET", http_status: "401", status_code: "2000", count: 1 },
    ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(requests).toEqual(expected);
    // one latency observation per request
    expect(sumOf(samples, "ocpi_request_duration_seconds_count", { partner: "emsp", module: "locations" })).toBe(5);
    // the cache: the first pull's pages and the unknown Location asked the adapter, the second pull's did not
    expect(sumOf(samples, "ocpi_cache_requests_total", { module: "locations", result: "miss" })).toBe(3);
    expect(sumOf(samples, "ocpi_cache_requests_total", { module: "locations", result: "hit" })).toBe(2);
    expect(sumOf(samples, "ocpi_adapter_calls_total", { adapter: "local", port: "locations.SENDER", result: "ok" })).toBe(3);
    expect(sumOf(samples, "ocpi_adapter_call_duration_seconds_count", { adapter: "local", port: "locations.SENDER" })).toBe(3);
    // the CPO called the eMSP back during the handshake (versions, details), before it was a partner
    expect(sumOf(samples, "ocpi_outbound_requests_total", { partner: "none", result: "ok" })).toBe(2);
    expect(samplesOf(samples, "ocpi_outbox_depth", { partner: "emsp" })).toEqual([expect.objectContaining({ value: 0 })]);
  });

  it("counts the eMSP's calls to the CPO by module and result", async () => {
    const samples = await scrape(`http://127.0.0.1:${emspMetricsPort}/metrics`);
    const outbound = samplesOf(samples, "ocpi_outbound_requests_total", { partner: "cpo" }).map((s) => ({ ...s.labels, count: s.value }));
    expect(outbound).toEqual([
      { partner: "cpo", module: "locations", result: "ok", count: 4 },
      { partner: "cpo", module: "locations", result: "ocpi", count: 1 },
    ]);
    expect(sumOf(samples, "ocpi_outbound_request_duration_seconds_count", { partner: "cpo", module: "locations" })).toBe(5);
    // the handshake's own calls (versions, details, credentials POST) name no partner yet
    expect(sumOf(samples, "ocpi_outbound_requests_total", { partner: "none" })).toBe(3);
    // and the CPO's callbacks during the handshake were served by the eMSP: versions and details with the CPO's token
    expect(sumOf(samples, "ocpi_requests_total", { partner: "cpo", module: "versions", status_code: "1000" })).toBe(2);
  });

  it("keeps labels bounded: no object ids, no tokens", async () => {
    const text = (await ocpiRequest("GET", `${cpoUrl}/metrics`, { headers: { Authorization: `Bearer ${ADMIN}` } })).text;
    for (const secret of [TOKEN_A, ADMIN, "NOPE", "LOC1"]) expect(text).not.toContain(secret);
    expect(logs.leaks()).toEqual([]);
  });
});
