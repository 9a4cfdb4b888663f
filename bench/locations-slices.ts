import "reflect-metadata";
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { GatewayConfig } from "../config/types";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, median, spawnOnServerCore, startRedis, stop, waitForOutput } from "./support";
import { benchLease, measured, type MeasuredRun } from "./locations-bench";

const KOA_SERVER = path.resolve(__dirname, "koa-server.js");
/** This build's CLI; a gateway of another build (BENCH_SLICES_BEFORE) runs that build's. */
export const cliOf = (dist: string): string => path.resolve(dist, "app/cli.js");

/** The builds whose gateways the slices load: this one, and with BENCH_SLICES_BEFORE=<dist directory> that one too. */
export const sliceBuilds = (): { before: boolean; dist: string }[] => [
  { before: false, dist: path.resolve(__dirname, "..") },
  ...(process.env.BENCH_SLICES_BEFORE ? [{ before: true, dist: path.resolve(process.env.BENCH_SLICES_BEFORE) }] : []),
];


/** A server the slices load: its process (for its CPU time), the URL and headers of its request. */
export interface SliceServer {
  name: string;
  child: ChildProcess;
  url: string;
  headers: Record<string, string>;
}

/**
 * Warms each server up, then loads them in turn, `seconds` a slice, `rounds` times (the order reversed every
 * other round); after each slice `record` gets the server's index, its run, and what `mark` answered just
 * before the slice.
 */
export const inSlices = async <M>(
  servers: SliceServer[],
  seconds: number,
  rounds: number,
  record: (server: number, run: MeasuredRun, mark: M | undefined) => void,
  mark?: () => M,
): Promise<void> => {
  for (const s of servers) await measured(s.child, "warm", s.url, s.headers, 2);
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, i) => i);
    if (round % 2) order.reverse();
    for (const i of order) {
      const before = mark?.();
      record(i, await measured(servers[i].child, servers[i].name, servers[i].url, servers[i].headers, seconds), before);
    }
  }
};

export interface SliceRow {
  name: string;
  /** CPU µs per request of each slice, in the order they ran */
  cpuMicros: number[];
  requestsPerSecond: number[];
}


/**
 * `npm run bench -- locations-slices`: the cached `GET /locations?limit=50`
 * of the locations scenario on gateways that are all up at once (this
 * build on the Redis store and on SQLite, each on its own redis-server or
 * file; with BENCH_SLICES_BEFORE=<dist directory of another build> the same
 * two of that build too) and the minimal Koa app sending the same bytes,
 * loaded in turn, `seconds` each, `rounds` times (the order reversed every
 * other round). Each server's CPU time per request (/proc) is taken per
 * slice, so a machine whose load drifts weighs on every server alike: the
 * figures to compare are the medians, and the ratios of servers measured
 * in the same round.
 */
export const benchLocationsSlices = async (seconds: number, rounds: number): Promise<SliceRow[]> => {
  const root = mkdtempSync(path.join(os.tmpdir(), "ocpi-slices-"));
  const processes: ChildProcess[] = [];
  const servers: SliceServer[] = [];
  try {
    for (const { before, dist } of sliceBuilds()) {
      const label = before ? "before, " : "";
      for (const store of ["Redis", "SQLite"] as const) {
        const dir = mkdtempSync(path.join(root, "gw-"));
        const port = await freePort();
        let config: GatewayConfig = benchGatewayConfig(dir, port);
        if (store === "Redis") {
          const redis = await startRedis(dir);
          if (!redis) continue;
          processes.push(redis.process);
          config = { ...config, store: { type: "redis", url: redis.url, key_prefix: "bench:", ...benchLease() } };
        }
        writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
        const token = await registerBenchPartner(config);
        const child = spawnOnServerCore([cliOf(dist), "start", "--config", path.join(dir, "gateway.yaml")]);
        processes.push(child);
        await waitForOutput(child, "listening on");
        servers.push({ name: `${label}gateway, cached page (${store})`, child, url: `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`, headers: { Authorization: `Token ${Buffer.from(token).toString("base64")}` } });
      }
    }
    const sample = await fetch(servers[0].url, { headers: servers[0].headers });
    writeFileSync(path.join(root, "body"), Buffer.from(await sample.arrayBuffer()));
    const captured = [...sample.headers].filter(([k]) => !["content-length", "date", "connection", "keep-alive"].includes(k));
    writeFileSync(path.join(root, "headers.json"), JSON.stringify(Object.fromEntries(captured)));
    const koaPort = await freePort();
    const koa = spawnOnServerCore([KOA_SERVER, String(koaPort), path.join(root, "body"), path.join(root, "headers.json")]);
    processes.push(koa);
    await waitForOutput(koa, "listening on");
    servers.push({ name: "minimal Koa app, same bytes", child: koa, url: `http://${HOST}:${koaPort}/`, headers: servers[0].headers });

    const rows: SliceRow[] = servers.map((s) => ({ name: s.name, cpuMicros: [], requestsPerSecond: [] }));
    await inSlices(servers, seconds, rounds, (i, run) => {
      rows[i].cpuMicros.push(run.cpuMicros ?? NaN);
      rows[i].requestsPerSecond.push(run.requestsPerSecond);
    });
    return rows;
  } finally {
    for (const child of processes.reverse()) await stop(child);
    rmSync(root, { recursive: true, force: true });
  }
};

/** The section's table: each server's medians, and its CPU against Koa's in the same round (median and spread). */
export const slicesTable = (rows: SliceRow[], seconds: number): string[] => {
  const koa = rows[rows.length - 1];
  const perRound = (row: SliceRow) => row.cpuMicros.map((cpu, i) => koa.cpuMicros[i] / cpu);
  return [
    `Every server up at once and loaded in turn, ${seconds} s a slice, ${koa.cpuMicros.length} rounds (the order reversed every other round); CPU µs/req is the server's CPU time (/proc) over the requests of its slice. ` +
      "`CPU × Koa` is Koa's CPU per request over this server's in the same round: the median of the rounds, and their range. Target (issue #26, 4): ≥ 0.90 × Koa.",
    "",
    "| server | requests/s (median) | CPU µs/req (median) | CPU × Koa (median) | CPU × Koa (range) | CPU µs/req of each slice |",
    "|---|---:|---:|---:|---:|---|",
    ...rows.map((row) => {
      const ratios = perRound(row);
      return `| ${row.name} | ${Math.round(median(row.requestsPerSecond))} | ${median(row.cpuMicros).toFixed(1)} | ${median(ratios).toFixed(2)} | ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)} | ${row.cpuMicros.map((c) => c.toFixed(0)).join(" ")} |`;
    }),
  ];
};
