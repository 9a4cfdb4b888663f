import "reflect-metadata";
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { GatewayConfig } from "../config/types";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, load, spawnOnServerCore, startRedis, stop, waitForOutput, type LoadResult, type RatioBar } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");
const RAW_SERVER = path.resolve(__dirname, "raw-server.js");
const KOA_SERVER = path.resolve(__dirname, "koa-server.js");

/** The fixed rate of the latency run, and the p99 it must stay within (issue #11). */
export const FIXED_RATE = 2000;
export const P99_TARGET_MS = 5;

/** BENCH_GENERATION_LEASE_MS=<ms>: the Redis store's `generation_lease_ms` in the benches on Redis (default: the store's default). */
export const benchLease = (): { generation_lease_ms?: number } =>
  process.env.BENCH_GENERATION_LEASE_MS === undefined ? {} : { generation_lease_ms: Number(process.env.BENCH_GENERATION_LEASE_MS) };

/** A load run and the CPU time its server spent per request (µs, from /proc; undefined where there is none). */
export type MeasuredRun = LoadResult & { cpuMicros?: number };

export interface LocationsBench {
  store: "SQLite" | "Redis";
  rows: MeasuredRun[];
  ratios: RatioBar[];
}

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (Linux; clock ticks of 1/100 s). */
export const cpuSeconds = (pid: number | undefined): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
};

/**
 * A load run against `server`, with the server's CPU time per request: on a
 * shared machine the load generator and the server may not get their cores,
 * which skews requests/s but not CPU time per request.
 */
export const measured = async (server: ChildProcess, ...args: Parameters<typeof load>): Promise<MeasuredRun> => {
  const before = cpuSeconds(server.pid);
  const result = await load(...args);
  const after = cpuSeconds(server.pid);
  const requests = result.requestsPerSecond * args[3];
  return { ...result, cpuMicros: before === undefined || after === undefined || requests === 0 ? undefined : ((after - before) * 1e6) / requests };
};

/**
 * Authenticated `GET /ocpi/2.3.0/sender/locations?limit=50` on a gateway
 * process (local adapter, 1,000 Locations, default cache: every request
 * after the first is a cached page) beside two baselines answering the same
 * bytes and headers, captured from the gateway: a raw node:http server and
 * a minimal Koa app. Once on the SQLite store and once on the Redis store
 * (when redis-server is installed; the cache's second tier is then that
 * Redis too). Each store: the three at full load, then the gateway and raw
 * at a fixed 2,000 requests/s for latency.
 */
export const benchLocationsList = async (seconds: number): Promise<LocationsBench[]> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-"));
  const redis = await startRedis(dir);
  try {
    const results = [await benchOneStore(dir, "SQLite", seconds, (config) => config)];
    if (redis) {
      const onRedis = (config: GatewayConfig): GatewayConfig => ({ ...config, store: { type: "redis", url: redis.url, key_prefix: "bench:", ...benchLease() } });
      results.push(await benchOneStore(dir, "Redis", seconds, onRedis));
    }
    return results;
  } finally {
    if (redis) await stop(redis.process);
    rmSync(dir, { recursive: true, force: true });
  }
};

const benchOneStore = async (
  parent: string,
  store: LocationsBench["store"],
  seconds: number,
  withStore: (config: GatewayConfig) => GatewayConfig,
): Promise<LocationsBench> => {
  const dir = mkdtempSync(path.join(parent, `${store.toLowerCase()}-`));
  const port = await freePort();
  const config = withStore(benchGatewayConfig(dir, port));
  writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
  const token = await registerBenchPartner(config);

  const gateway = spawnOnServerCore([CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
  const baselines: ChildProcess[] = [];
  try {
    await waitForOutput(gateway, "listening on");
    const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`;
    const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
    const sample = await fetch(url, { headers });
    const body = Buffer.from(await sample.arrayBuffer());
    if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${body.toString()}`);
    const sampleHeaders = Object.fromEntries([...sample.headers].filter(([k]) => k !== "content-length" && k !== "date" && k !== "connection" && k !== "keep-alive"));
    writeFileSync(path.join(dir, "body"), body);
    writeFileSync(path.join(dir, "headers.json"), JSON.stringify(sampleHeaders));

    const baseline = async (script: string): Promise<{ child: ChildProcess; url: string }> => {
      const baselinePort = await freePort();
      const child = spawnOnServerCore([script, String(baselinePort), path.join(dir, "body"), path.join(dir, "headers.json")]);
      baselines.push(child);
      await waitForOutput(child, "listening on");
      return { child, url: `http://${HOST}:${baselinePort}/` };
    };
    const rawServer = await baseline(RAW_SERVER);
    const koaServer = await baseline(KOA_SERVER);
    const kb = Math.round(body.length / 1024);

    const raw = await measured(rawServer.child, `raw node:http, same ${kb} KB page (baseline)`, rawServer.url, headers, seconds);
    const koa = await measured(koaServer.child, "minimal Koa app, same bytes", koaServer.url, headers, seconds);
    const cached = await measured(gateway, `gateway, cached page (${store})`, url, headers, seconds);
    const rawFixed = await measured(rawServer.child, `raw node:http at a fixed ${FIXED_RATE} req/s`, rawServer.url, headers, seconds, { rate: FIXED_RATE });
    const cachedFixed = await measured(gateway, `gateway, cached page (${store}), at a fixed ${FIXED_RATE} req/s`, url, headers, seconds, { rate: FIXED_RATE });
    const ratios: RatioBar[] = [
      { label: `cached page (${store}) / raw node:http`, ratio: cached.requestsPerSecond / raw.requestsPerSecond, target: 0.6 },
      { label: `cached page (${store}) / minimal Koa`, ratio: cached.requestsPerSecond / koa.requestsPerSecond, target: 0.9 },
      ...(cached.cpuMicros && raw.cpuMicros && koa.cpuMicros
        ? [
            { label: `cached page (${store}) / raw, CPU per request`, ratio: raw.cpuMicros / cached.cpuMicros, target: 0.6 },
            { label: `cached page (${store}) / Koa, CPU per request`, ratio: koa.cpuMicros / cached.cpuMicros, target: 0.9 },
          ]
        : []),
    ];
    return { store, rows: [raw, koa, cached, rawFixed, cachedFixed], ratios };
  } finally {
    for (const child of baselines) await stop(child);
    await stop(gateway);
  }
};

/** The section's table: every row against the raw baseline and the Koa one of its store. */
export const locationsTable = (results: LocationsBench[]): string[] => [
  `Every request after the first is a cached page (default cache, 1,000 Locations, local adapter). The baselines answer the bytes and headers the gateway answered, captured once; ` +
    `the fixed-rate rows hold the load at ${FIXED_RATE} requests/s (target: gateway p99 ≤ ${P99_TARGET_MS} ms). Targets: ≥ 0.60 × raw, ≥ 0.90 × Koa. ` +
    "CPU µs/req is the server process's CPU time (user + system, /proc) over the requests it answered in that run; " +
    "the CPU ratios (baseline's CPU per request / this row's) are what the throughput ratios would be if every server had its core to itself.",
  "",
  "| store | target | requests/s | p50 ms | p99 ms | × raw | × Koa | CPU µs/req | CPU × raw | CPU × Koa | non-2xx | errors |",
  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...results.flatMap(({ store, rows }) => {
    const [raw, koa] = rows;
    const fixed = (r: MeasuredRun) => r.name.includes("fixed");
    const ratio = (r: MeasuredRun, base: MeasuredRun) => (fixed(r) ? "—" : (r.requestsPerSecond / base.requestsPerSecond).toFixed(2));
    const cpuRatio = (r: MeasuredRun, base: MeasuredRun) => (fixed(r) || !r.cpuMicros || !base.cpuMicros ? "—" : (base.cpuMicros / r.cpuMicros).toFixed(2));
    return rows.map(
      (r) =>
        `| ${store} | ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${ratio(r, raw)} | ${ratio(r, koa)} | ` +
        `${r.cpuMicros === undefined ? "—" : r.cpuMicros.toFixed(1)} | ${cpuRatio(r, raw)} | ${cpuRatio(r, koa)} | ${r.non2xx} | ${r.errors} |`,
    );
  }),
];
