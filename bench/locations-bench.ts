import "reflect-metadata";
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { GatewayConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { HOST, freePort, load, spawnOnServerCore, stop, waitForOutput, type LoadResult } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");
const RAW_SERVER = path.resolve(__dirname, "raw-server.js");

export const benchLocation = (i: number) => ({
  country_code: "NL",
  party_id: "GWY",
  id: `LOC${String(i).padStart(5, "0")}`,
  publish: true,
  name: `Bench site ${i}`,
  address: `Benchstraat ${i}`,
  city: "Utrecht",
  postal_code: "3500AA",
  country: "NLD",
  coordinates: { latitude: "52.09074", longitude: "5.12142" },
  time_zone: "Europe/Amsterdam",
  evses: [
    {
      uid: `EVSE${i}`,
      evse_id: `NL*GWY*E${i}`,
      status: "AVAILABLE",
      connectors: [
        { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: "2026-01-01T00:00:00Z" },
      ],
      last_updated: "2026-01-01T00:00:00Z",
    },
  ],
  last_updated: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
});

/**
 * Authenticated `GET /locations?limit=50` on a gateway process (local
 * adapter, SQLite, 1,000 locations) against a raw node:http server that
 * answers the same bytes: the ratio is the cost of the whole kernel.
 */
export const benchLocationsList = async (seconds: number): Promise<LoadResult[]> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-"));
  const port = await freePort();
  const config: GatewayConfig = {
    server: { port, host: HOST, public_url: `http://${HOST}:${port}`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
    parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench CPO" } }],
    store: { type: "sqlite", path: path.join(dir, "gateway.db") },
    modules: { locations: { adapter: "local" } },
    adapters: { local: { seed: path.join(dir, "seed.json") } },
    partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
  };
  writeFileSync(path.join(dir, "seed.json"), JSON.stringify({ locations: Array.from({ length: 1000 }, (_, i) => benchLocation(i)) }));
  writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));

  // Register the bench partner in the store the way a credentials exchange would leave it.
  const setup = await Gateway.create(config);
  const token = await setup.registry.issueToken("bench");
  await setup.registry.recordRegistration("bench", {
    version: "2.3.0",
    versionsUrl: `http://${HOST}:1/versions`,
    endpoints: [],
    roles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "Bench eMSP" } }],
    tokenToPartner: "unused",
  });
  await setup.close();

  const gateway = spawnOnServerCore([CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
  let raw: ChildProcess | undefined;
  try {
    await waitForOutput(gateway, "listening on");
    const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`;
    const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
    const sample = await fetch(url, { headers });
    const body = Buffer.from(await sample.arrayBuffer());
    if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${body.toString()}`);
    const sampleHeaders = Object.fromEntries([...sample.headers].filter(([k]) => k !== "content-length" && k !== "date" && k !== "connection" && k !== "keep-alive"));

    const rawPort = await freePort();
    writeFileSync(path.join(dir, "body"), body);
    writeFileSync(path.join(dir, "headers.json"), JSON.stringify(sampleHeaders));
    raw = spawnOnServerCore([RAW_SERVER, String(rawPort), path.join(dir, "body"), path.join(dir, "headers.json")]);
    await waitForOutput(raw, "listening on");

    const baseline = await load("raw node:http, same bytes", `http://${HOST}:${rawPort}/`, headers, seconds);
    const gatewayResult = await load("gateway GET /locations?limit=50 (SQLite, local adapter)", url, headers, seconds);
    return [baseline, gatewayResult];
  } finally {
    if (raw) await stop(raw);
    await stop(gateway);
    rmSync(dir, { recursive: true, force: true });
  }
};
