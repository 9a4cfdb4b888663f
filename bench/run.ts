import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { RESULTS_FILE, writeRatios, writeResults, type LoadResult } from "./support";
import { benchLocationsList, locationsTable } from "./locations-bench";
import { benchCacheMemory, memoryTable } from "./cache-memory-bench";
import { profileCachedLocations, profileTable } from "./cpu-profile";
import { benchCachedLocations } from "./cache-bench";
import { benchPull, pullTable } from "./pull-bench";
import { benchPushFanOut, pushTable } from "./push-bench";
import { benchUncached, uncachedRatios, uncachedTable } from "./uncached-bench";
import { benchReceivers, receiversRatios, receiversTable } from "./receivers-bench";
import { benchSteve, steveTable } from "./steve-bench";
import { benchHub, hubTable } from "./hub-bench";
import { benchHubVsProxy, hubProxyTable } from "./hub-proxy-bench";
import { benchBodyLimits, bodyLimitsTable } from "./body-limits-bench";
import { auditTable, benchAudit } from "./audit-bench";
import { benchLocationsSlices, slicesTable } from "./locations-slices";
import { UNCACHED_SLICES_TITLE, benchUncachedSlices, uncachedSlicesTable } from "./uncached-slices";

/**
 * `npm run bench`: every scenario, each against a baseline measured in the
 * same run; `npm run bench -- <scenario> [<scenario> …]` runs only those.
 * Each scenario writes its own section of bench/RESULTS.md (writeResults
 * merges, so the others stay). BENCH_SECONDS sets the length of each load
 * run (default 10).
 */
const SCENARIOS: Record<string, (seconds: number) => Promise<void>> = {
  locations: async (seconds) => {
    const title = "Authenticated GET /locations?limit=50, cached, vs raw node:http and a minimal Koa app sending the same bytes";
    const results = await benchLocationsList(seconds);
    writeResults(title, locationsTable(results));
    writeRatios(title, results.flatMap((r) => r.ratios));
  },
  cache: async (seconds) =>
    writeResults("Cached vs uncached GET /locations?limit=50, adapter artificially slow (50 ms per call)", table(await benchCachedLocations(seconds))),
  uncached: async (seconds) => {
    const rows = await benchUncached(seconds, storesAsked());
    const { title, lines } = uncachedTable(rows);
    writeResults(title, lines);
    writeRatios(title, uncachedRatios(rows));
  },
  receivers: async (seconds) => {
    const rows = await benchReceivers(seconds, storesAsked());
    const { title, lines } = receiversTable(rows);
    writeResults(title, lines);
    writeRatios(title, receiversRatios(rows));
  },
  pull: async () => {
    const { title, lines } = pullTable(await benchPull(storesAsked()));
    writeResults(title, lines);
  },
  push: async () => {
    const { title, lines } = pushTable(await benchPushFanOut(storesAsked()));
    writeResults(title, lines);
  },
  // BENCH_STEVE_PROFILE=1 adds a CPU profile of the steve gateway's list runs.
  steve: async (seconds) => {
    const { title, lines } = steveTable(await benchSteve(seconds, { profile: process.env.BENCH_STEVE_PROFILE === "1" }));
    writeResults(title, lines);
  },
  hub: async (seconds) => {
    const result = await benchHub(seconds);
    const { title, lines } = hubTable(result);
    writeResults(title, lines);
    writeRatios(title, result.ratios);
    await hubVsProxy(seconds);
  },
  // about two and a half minutes: the worst bodies within the body limits, and a normal client beside them, three rounds (issue #23)
  "body-limits": async (seconds) => {
    const { title, lines } = bodyLimitsTable(await benchBodyLimits(seconds));
    writeResults(title, lines);
  },
  // issue #27: 100,000 CDRs audited (BENCH_AUDIT_CDRS), and a partner's POST beside the audit; BENCH_AUDIT_PROFILE=<dir>: CPU profiles of the drains
  audit: async (seconds) => {
    const { title, lines } = auditTable(await benchAudit(seconds, storesAsked()));
    writeResults(title, lines);
  },
  // Long (a million requests, bounded by BENCH_MEMORY_MAX_SECONDS); runs last in a full run.
  "cache-memory": async () =>
    writeResults("Memory: RSS after 100,000 and 1,000,000 cached GET /locations?limit=50", memoryTable(await benchCacheMemory(storesAsked()))),
};

/** Issue #26 target 2: the hub's forwarding against a minimal streaming proxy (part of `hub`; alone: `npm run bench -- hub-proxy`). */
const hubVsProxy = async (seconds: number): Promise<void> => {
  const result = await benchHubVsProxy(seconds);
  const { title, lines } = hubProxyTable(result);
  writeResults(title, lines);
  writeRatios(title, result.ratios);
};

/** Run only when asked by name (`npm run bench -- profile`): the profiler slows the gateway, so its figures are not results. */
const ON_REQUEST: Record<string, (seconds: number) => Promise<void>> = {
  "hub-proxy": hubVsProxy,
  // the cached page on Redis, SQLite and Koa in interleaved slices (BENCH_SLICES_ROUNDS, default 8; BENCH_SLICES_BEFORE: another build's dist too)
  "locations-slices": async (seconds) => {
    const title = "Cached GET /locations?limit=50 on Redis and SQLite vs a minimal Koa app, in interleaved slices (CPU per request)";
    writeResults(title, slicesTable(await benchLocationsSlices(seconds, Number(process.env.BENCH_SLICES_ROUNDS ?? 8)), seconds));
  },
  // uncached first pages of this build (and BENCH_SLICES_BEFORE's) and raw node:http in interleaved slices (BENCH_SLICES_ROUNDS, default 8)
  "uncached-slices": async (seconds) =>
    writeResults(UNCACHED_SLICES_TITLE, uncachedSlicesTable(await benchUncachedSlices(seconds, Number(process.env.BENCH_SLICES_ROUNDS ?? 8), storesAsked()), seconds)),
  // SQLite unless BENCH_STORES names the stores (redis: the Redis store, and the cache's second tier on it)
  profile: async (seconds) => {
    for (const store of process.env.BENCH_STORES ? storesAsked() : ["SQLite" as const]) {
      const title = `CPU profile: cached GET /locations?limit=50${store === "Redis" ? " on the Redis store" : ""} (node --cpu-prof, top self time)`;
      writeResults(title, profileTable(await profileCachedLocations(seconds, 20, store)));
    }
  },
};

/** BENCH_STORES=sqlite or redis limits the scenarios that run on both stores to one (default: both). */
const storesAsked = (): ("SQLite" | "Redis")[] =>
  (process.env.BENCH_STORES ?? "sqlite,redis").split(",").map((s) => (s.trim().toLowerCase() === "redis" ? "Redis" : "SQLite"));

const main = async () => {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const asked = process.argv.slice(2);
  const all = { ...SCENARIOS, ...ON_REQUEST };
  const unknown = asked.filter((name) => !all[name]);
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(", ")}; scenarios: ${Object.keys(all).join(", ")}`);
  // The load generator takes core 1; servers are pinned to core 0. Every thread of it (-a): the threads node
  // starts before this line (V8's for its garbage collector and compiler) would otherwise run on either core,
  // the servers' included, where `taskset -p` moves the main thread alone (threads made later follow it).
  if (existsSync("/usr/bin/taskset")) execFileSync("/usr/bin/taskset", ["-a", "-pc", "1", String(process.pid)], { stdio: "ignore" });
  for (const name of asked.length ? asked : Object.keys(SCENARIOS)) {
    process.stdout.write(`bench: ${name}\n`);
    await all[name](seconds);
  }
  process.stdout.write(readFileSync(RESULTS_FILE, "utf8"));
};

const table = (rows: LoadResult[]): string => {
  const base = rows[0].requestsPerSecond;
  const lines = [
    "| target | requests/s | p50 ms | p99 ms | ratio to baseline | non-2xx | errors |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${(r.requestsPerSecond / base).toFixed(2)} | ${r.non2xx} | ${r.errors} |`,
    ),
    "",
  ];
  return lines.join("\n");
};

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
