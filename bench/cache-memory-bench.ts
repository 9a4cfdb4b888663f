import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import autocannon from "autocannon";
import { stringify } from "yaml";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, spawnOnServerCore, stop, waitForOutput } from "./support";
import { startBenchRedis } from "./bench-redis";

const CLI = path.resolve(__dirname, "../app/cli.js");
const FIRST = 100_000;
const TOTAL = 1_000_000;
/** The whole run stops here even if the million is not reached (a slow machine): the table says how far it got. */
const MAX_SECONDS = Number(process.env.BENCH_MEMORY_MAX_SECONDS ?? 900);

export interface MemoryResult {
  store: string;
  rssAfterFirstMb: number;
  rssAfterTotalMb: number;
  requests: number;
  seconds: number;
  non2xx: number;
  errors: number;
}

/**
 * Memory under the cached rate: the bench gateway (1,000 Locations, default
 * cache; on SQLite, or on Redis, where the cache's second tier is that Redis
 * too) answers 100,000 cached `GET /locations?limit=50`, then 900,000 more,
 * as fast as it can; its resident set (from /proc) is read after each. A
 * leak per request (a per-request entry kept somewhere) shows as growth
 * between the two. Bounded: at most MAX_SECONDS per store.
 */
export const benchCacheMemory = async (stores: ("SQLite" | "Redis")[] = ["SQLite", "Redis"]): Promise<MemoryResult[]> => {
  const results: MemoryResult[] = [];
  for (const store of stores) {
    if (store === "SQLite") results.push(await oneStore(store));
    else {
      const redis = await startBenchRedis();
      try {
        results.push(await oneStore(store, redis.url));
      } finally {
        await redis.stop();
      }
    }
  }
  return results;
};

const oneStore = async (store: "SQLite" | "Redis", redisUrl?: string): Promise<MemoryResult> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-memory-bench-"));
  const port = await freePort();
  const base = benchGatewayConfig(dir, port);
  const config = redisUrl ? { ...base, store: { type: "redis" as const, url: redisUrl, key_prefix: "bench-memory:" } } : base;
  writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
  const token = await registerBenchPartner(config);
  const gateway = spawnOnServerCore([CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
  try {
    await waitForOutput(gateway, "listening on");
    const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`;
    const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
    const started = Date.now();
    const deadline = started + MAX_SECONDS * 1000;
    const first = await run(url, headers, FIRST, deadline);
    const rssAfterFirstMb = rssMb(gateway.pid!);
    const rest = await run(url, headers, TOTAL - FIRST, deadline);
    const rssAfterTotalMb = rssMb(gateway.pid!);
    return {
      store,
      rssAfterFirstMb,
      rssAfterTotalMb,
      requests: first.requests + rest.requests,
      seconds: (Date.now() - started) / 1000,
      non2xx: first.non2xx + rest.non2xx,
      errors: first.errors + rest.errors,
    };
  } finally {
    await stop(gateway);
    rmSync(dir, { recursive: true, force: true });
  }
};

const run = (url: string, headers: Record<string, string>, amount: number, deadline: number): Promise<{ requests: number; non2xx: number; errors: number }> =>
  new Promise((resolve, reject) => {
    const instance = autocannon({ url, headers, connections: 50, amount }, (error, result) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve({ requests: result.requests.total, non2xx: result.non2xx, errors: result.errors });
    });
    const timer = setTimeout(() => instance.stop(), Math.max(0, deadline - Date.now()));
  });

/** Resident set of a process in MB, from /proc (Linux). */
const rssMb = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Math.round(Number(match[1]) / 1024) : NaN;
};

export const memoryTable = (results: MemoryResult[]): string[] => [
  `The bench gateway (default cache; on Redis its cache's second tier is that Redis) answering cached \`GET /ocpi/2.3.0/sender/locations?limit=50\` at full rate, 50 connections; resident set read from /proc after ${FIRST.toLocaleString("en")} requests and after ${TOTAL.toLocaleString("en")}. Target: within 10 % (no leak).`,
  "",
  "| store | requests | seconds | RSS after 100,000 MB | RSS after all MB | growth | non-2xx | errors |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
  ...results.map(
    (r) =>
      `| ${r.store} | ${r.requests} | ${r.seconds.toFixed(0)} | ${r.rssAfterFirstMb} | ${r.rssAfterTotalMb} | ${(((r.rssAfterTotalMb - r.rssAfterFirstMb) / r.rssAfterFirstMb) * 100).toFixed(1)} % | ${r.non2xx} | ${r.errors} |`,
  ),
];
