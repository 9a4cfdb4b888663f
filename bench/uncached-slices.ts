import "reflect-metadata";
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { StoreConfig } from "../config/types";
import { openStore } from "../core/store/open-store";
import { registerBenchPartner } from "./bench-gateway";
import { startBenchRedis } from "./bench-redis";
import { cpuSeconds } from "./locations-bench";
import { freePort, median, spawnOnServerCore, stop, waitForOutput } from "./support";
import { cliOf, inSlices, sliceBuilds } from "./locations-slices";
import { KINDS, gatewayConfig, rawBaseline, seed, urlOf, type Kind, type StoreKind } from "./uncached-bench";
const SIZE = 1_000;

export interface UncachedSliceRow {
  store: StoreKind;
  kind: Kind;
  /** "raw node:http", "gateway" or "gateway before" */
  server: string;
  /** CPU µs per request of each slice, in the order they ran */
  cpuMicros: number[];
  requestsPerSecond: number[];
  /** redis-server's CPU µs per request of each slice (Redis rows of gateways) */
  redisMicros: number[];
}


/**
 * `npm run bench -- uncached-slices`: the uncached first page (cache TTL 0) of Locations, Sessions and CDRs
 * at 1,000 objects, as in the uncached scenario, on gateways that are all up at once on one store (this build;
 * with BENCH_SLICES_BEFORE=<dist directory of another build> that build's gateway too, on the same store) and
 * a raw node:http server per list sending the bytes this build's gateway answered, loaded in turn, `seconds`
 * each, `rounds` times (the order reversed every other round). CPU time per request (/proc) per slice, so a
 * machine whose load drifts weighs on every server alike: compare the medians and the ratios of one round.
 */
export const benchUncachedSlices = async (seconds: number, rounds: number, stores: StoreKind[]): Promise<UncachedSliceRow[]> => {
  const rows: UncachedSliceRow[] = [];
  const builds = sliceBuilds().map(({ before, dist }) => ({ server: before ? "gateway before" : "gateway", dist }));
  for (const kind of stores) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-uncached-slices-"));
    const redis = kind === "Redis" ? await startBenchRedis() : undefined;
    const storeConfig: StoreConfig = redis ? { type: "redis", url: redis.url, key_prefix: "bench:" } : { type: "sqlite", path: path.join(dir, "gateway.db") };
    const processes: ChildProcess[] = [];
    try {
      const gateways: { server: string; child: ChildProcess; port: number }[] = [];
      let token = "";
      for (const { server, dist } of builds) {
        const port = await freePort();
        const config = gatewayConfig(port, storeConfig);
        writeFileSync(path.join(dir, `${gateways.length}.yaml`), stringify(config));
        if (!token) token = await registerBenchPartner(config);
        const child = spawnOnServerCore([cliOf(dist), "start", "--config", path.join(dir, `${gateways.length}.yaml`)]);
        processes.push(child);
        await waitForOutput(child, "listening on");
        gateways.push({ server, child, port });
      }
      const store = await openStore(storeConfig);
      await seed(store, 0, SIZE).finally(() => store.close());
      const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
      for (const list of KINDS) {
        const raw = await rawBaseline(dir, list, urlOf(gateways[0].port, list, 0), headers);
        processes.push(raw.child);
        const servers = [{ name: "raw node:http", child: raw.child, url: raw.url, headers }, ...gateways.map((g) => ({ name: g.server, child: g.child, url: urlOf(g.port, list, 0), headers }))];
        const listRows = servers.map((s) => ({ store: kind, kind: list, server: s.name, cpuMicros: [] as number[], requestsPerSecond: [] as number[], redisMicros: [] as number[] }));
        const redisCpu = () => cpuSeconds(redis?.pid);
        await inSlices(
          servers,
          seconds,
          rounds,
          (i, run, redisBefore) => {
            const redisAfter = redisCpu();
            if (run.non2xx || run.errors) throw new Error(`${servers[i].name} answered ${run.non2xx} non-2xx and ${run.errors} errors for ${servers[i].url}`);
            listRows[i].cpuMicros.push(run.cpuMicros ?? NaN);
            listRows[i].requestsPerSecond.push(run.requestsPerSecond);
            if (redisBefore !== undefined && redisAfter !== undefined && i > 0) listRows[i].redisMicros.push(((redisAfter - redisBefore) * 1e6) / (run.requestsPerSecond * seconds));
          },
          redisCpu,
        );
        rows.push(...listRows);
      }
    } finally {
      for (const child of processes.reverse()) await stop(child);
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
};

export const UNCACHED_SLICES_TITLE = "Uncached first page (cache TTL 0, 1,000 objects) vs raw node:http, in interleaved slices (CPU per request)";

/** Each server's medians, its CPU against raw's in the same round, and this build's against the other's (BENCH_SLICES_BEFORE). */
export const uncachedSlicesTable = (rows: UncachedSliceRow[], seconds: number): string[] => {
  const of = (row: UncachedSliceRow, server: string) => rows.find((r) => r.store === row.store && r.kind === row.kind && r.server === server);
  const perRound = (over: UncachedSliceRow | undefined, row: UncachedSliceRow) => (over ? row.cpuMicros.map((cpu, i) => over.cpuMicros[i] / cpu) : []);
  const spread = (ratios: number[]) => (ratios.length ? `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})` : "—");
  return [
    `Every server up at once and loaded in turn, ${seconds} s a slice, ${rows[0]?.cpuMicros.length ?? 0} rounds per list (the order reversed every other round); the gateways of both builds on one store, seeded as in the uncached scenario. ` +
      "CPU µs/req is the server's CPU time (/proc) over the requests of its slice. `CPU × raw`: raw's CPU per request over this server's in the same round, median and range; " +
      "`before / this`: the other build's over this build's (below 1: this build costs more); redis-server: its CPU time over the gateway's requests of the slice (on the server core with the gateways). Targets (issue #26): ≥ 0.35 × raw on SQLite, ≥ 0.30 × on Redis.",
    "",
    "| store, list | server | requests/s (median) | CPU µs/req (median) | CPU × raw (median, range) | CPU before / this (median, range) | redis-server CPU µs/req (median) | CPU µs/req of each slice |",
    "|---|---|---:|---:|---:|---:|---:|---|",
    ...rows.map((row) => {
      const versus = row.server === "gateway" ? spread(perRound(of(row, "gateway before"), row)) : "—";
      return `| ${row.store}, ${row.kind} | ${row.server} | ${Math.round(median(row.requestsPerSecond))} | ${median(row.cpuMicros).toFixed(1)} | ${row.server === "raw node:http" ? "1.00" : spread(perRound(of(row, "raw node:http"), row))} | ${versus} | ${row.redisMicros.length ? median(row.redisMicros).toFixed(1) : "—"} | ${row.cpuMicros.map((c) => c.toFixed(0)).join(" ")} |`;
    }),
  ];
};
