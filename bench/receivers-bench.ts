import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import autocannon from "autocannon";
import type { GatewayConfig, StoreConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { benchLocation } from "./bench-gateway";
import { startBenchRedis } from "./bench-redis";
import type { ChildProcess } from "node:child_process";
import { HOST, freePort, spawnOnServerCore, stop, waitForOutput, type RatioBar } from "./support";
import { cpuSeconds, type MeasuredRun } from "./locations-bench";

const CLI = path.resolve(__dirname, "../app/cli.js");
const KOA_STORE = path.resolve(__dirname, "koa-store-server.js");

/** Our parties: a CPO that takes the partner's Tokens, an eMSP that takes its Locations. */
const OURS = [
  { country_code: "NL", party_id: "OUR", role: "CPO" as const, business_details: { name: "Bench CPO" } },
  { country_code: "DE", party_id: "OUR", role: "EMSP" as const, business_details: { name: "Bench eMSP" } },
];
const token = {
  country_code: "DE",
  party_id: "PTN",
  uid: "TOK1",
  type: "RFID",
  contract_id: "DE-PTN-C00001",
  issuer: "Bench eMobility",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: "2026-01-01T00:00:00Z",
};
const status = { status: "CHARGING", last_updated: "2026-01-02T00:00:00Z" };

export interface ReceiverRow extends MeasuredRun {
  store: "SQLite" | "Redis";
}

const gatewayConfig = (port: number, store: StoreConfig): GatewayConfig => ({
  server: { port, host: HOST, public_url: `http://${HOST}:${port}`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
  parties: OURS,
  store,
  modules: { locations: { adapter: "local" }, tokens: { adapter: "local" } },
  adapters: { local: {} },
  partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
});

/**
 * One autocannon run sending the same body with `method` to `server`, with the server's CPU time per request
 * (µs, /proc: on a shared machine the throughput ratio moves with the load, CPU per request much less);
 * non-2xx or errors fail the run's row, they are not hidden.
 */
const send = async (
  server: ChildProcess,
  name: string,
  url: string,
  method: "PUT" | "PATCH",
  body: unknown,
  headers: Record<string, string>,
  seconds: number,
): Promise<MeasuredRun> => {
  const before = cpuSeconds(server.pid);
  const result = await autocannon({ url, method, body: JSON.stringify(body), headers: { ...headers, "Content-Type": "application/json" }, connections: 50, duration: seconds });
  const after = cpuSeconds(server.pid);
  const requests = result.requests.average * seconds;
  const cpuMicros = before === undefined || after === undefined || requests === 0 ? undefined : ((after - before) * 1e6) / requests;
  return { name, requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors, cpuMicros };
};

/**
 * Receiver writes: `PUT` of a Token and `PATCH` of an EVSE's status (the
 * partner pushing to us), on a gateway process, against a minimal Koa app
 * that parses and stores the same JSON in the same store (bench/koa-store-server.ts),
 * on SQLite and on Redis. Each request writes the same object again, the
 * steady state of a partner re-sending state.
 */
export const benchReceivers = async (seconds: number, stores: ("SQLite" | "Redis")[] = ["SQLite", "Redis"]): Promise<ReceiverRow[]> => {
  const rows: ReceiverRow[] = [];
  for (const kind of stores) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-receivers-"));
    const redis = kind === "Redis" ? await startBenchRedis() : undefined;
    const storeOf = (name: string): StoreConfig =>
      redis ? { type: "redis", url: redis.url, key_prefix: `${name}:` } : { type: "sqlite", path: path.join(dir, `${name}.db`) };
    const port = await freePort();
    const config = gatewayConfig(port, storeOf("gateway"));
    writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
    const setup = await Gateway.create(config);
    let tokenToUs: string;
    try {
      tokenToUs = await setup.registry.issueToken("bench");
      await setup.registry.recordRegistration("bench", {
        version: "2.3.0",
        versionsUrl: `http://${HOST}:1/versions`,
        endpoints: [],
        roles: [
          { country_code: "DE", party_id: "PTN", role: "EMSP", business_details: { name: "Bench partner eMSP" } },
          { country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench partner CPO" } },
        ],
        tokenToPartner: "unused",
      });
    } finally {
      await setup.close();
    }
    const koaPort = await freePort();
    // BENCH_CPU_PROF=<dir>: the gateway writes a CPU profile there when it stops
    const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
    const gateway = spawnOnServerCore([...profile, CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
    const koa = spawnOnServerCore([KOA_STORE, String(koaPort), JSON.stringify(storeOf("koa"))]);
    try {
      await Promise.all([waitForOutput(gateway, "listening on"), waitForOutput(koa, "listening on")]);
      const headers = { Authorization: `Token ${Buffer.from(tokenToUs).toString("base64")}` };
      const base = `http://${HOST}:${port}/ocpi/2.3.0/receiver`;
      // the Location whose EVSE the PATCHes change
      const location = benchLocation(1);
      const put = await fetch(`${base}/locations/NL/GWY/${location.id}`, { method: "PUT", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(location) });
      if (!put.ok) throw new Error(`gateway answered ${put.status} to the Location PUT: ${await put.text()}`);
      const evse = `${location.id}/${location.evses[0].uid}`;
      const koaBase = `http://${HOST}:${koaPort}`;
      await fetch(`${koaBase}/locations/${evse}`, { method: "PUT", body: JSON.stringify(location.evses[0]) });
      rows.push({ store: kind, ...(await send(koa, `${kind}: minimal Koa app, PUT Token (baseline)`, `${koaBase}/tokens/DE/PTN/TOK1`, "PUT", token, headers, seconds)) });
      rows.push({ store: kind, ...(await send(gateway, `${kind}: gateway PUT /tokens/DE/PTN/TOK1`, `${base}/tokens/DE/PTN/TOK1?type=RFID`, "PUT", token, headers, seconds)) });
      rows.push({ store: kind, ...(await send(koa, `${kind}: minimal Koa app, PATCH EVSE status (baseline)`, `${koaBase}/locations/${evse}`, "PATCH", status, headers, seconds)) });
      rows.push({ store: kind, ...(await send(gateway, `${kind}: gateway PATCH /locations/NL/GWY/${evse}`, `${base}/locations/NL/GWY/${evse}`, "PATCH", status, headers, seconds)) });
    } finally {
      await Promise.all([stop(gateway), stop(koa)]);
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
};

export const receiversTable = (rows: ReceiverRow[]): { title: string; lines: string[] } => ({
  title: "Receiver writes: PUT Token and PATCH EVSE status vs a minimal Koa app storing the same JSON in the same store",
  lines: [
    "50 connections re-sending one object. The baseline parses the body and writes it (PUT) or merges it in one atomic update (PATCH) in the same kind of store, with no authentication, validation or translation. The ratio compares requests/s with the baseline row just above it; " +
      "CPU µs/req is the server process's CPU time (user + system, /proc) over the requests it answered, `CPU ratio` the baseline's over this row's. Target (issue #26): ≥ 0.5 × the baseline.",
    "",
    "| target | requests/s | p50 ms | p99 ms | ratio to baseline | CPU µs/req | CPU ratio | non-2xx | errors |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r, i) => {
      const base = rows[i % 2 === 0 ? i : i - 1];
      const cpu = r.cpuMicros === undefined ? "—" : r.cpuMicros.toFixed(1);
      const cpuRatio = r.cpuMicros && base.cpuMicros ? (base.cpuMicros / r.cpuMicros).toFixed(2) : "—";
      return `| ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${(r.requestsPerSecond / base.requestsPerSecond).toFixed(2)} | ${cpu} | ${cpuRatio} | ${r.non2xx} | ${r.errors} |`;
    }),
  ],
});

/**
 * The bars of bench/ratios.svg: each gateway write against the baseline just before it, in requests/s and by
 * CPU per request (the baseline's µs over the gateway's: on a shared machine the steadier of the two), target 0.5 (issue #26).
 */
export const receiversRatios = (rows: ReceiverRow[]): RatioBar[] =>
  rows.flatMap((r, i) => {
    if (i % 2 === 0) return [];
    const [label, base] = [`${r.name.replace(/ \/.*/, "").replace("gateway ", "")} / minimal Koa`, rows[i - 1]];
    const byCpu = r.cpuMicros && base.cpuMicros ? [{ label: `${label}, CPU per request`, ratio: base.cpuMicros / r.cpuMicros, target: 0.5 }] : [];
    return [{ label, ratio: r.requestsPerSecond / base.requestsPerSecond, target: 0.5 }, ...byCpu];
  });
