import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, load, spawnOnServerCore, startRedis, stop, waitForOutput } from "./support";
import { benchLease } from "./locations-bench";

const CLI = path.resolve(__dirname, "../app/cli.js");

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  /** the node sampled, one per sample */
  samples: number[];
  startTime: number;
  endTime: number;
}

export interface Frame {
  frame: string;
  /** µs of the frame's self time per request served */
  micros: number;
}

/** The load of the profiled run: fixed, so the gateway is not saturated and its samples are its work (idle apart). */
const PROFILE_RATE = 3000;

/**
 * `npm run bench -- profile`: the bench gateway (SQLite, or the Redis store
 * with `BENCH_STORES=redis`; 1,000 Locations, default cache) under
 * `node --cpu-prof` while autocannon sends the cached
 * `GET /ocpi/2.3.0/sender/locations?limit=50` at a fixed 3,000 requests/s;
 * the frames with the most self time, in µs per request served, from the
 * first request on (start-up left out). On a shared machine a share of all
 * samples says little; time per request compares across runs.
 */
export const profileCachedLocations = async (
  seconds: number,
  top = 20,
  store: "SQLite" | "Redis" = "SQLite",
): Promise<{ frames: Frame[]; busyMicros: number; requests: number }> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-profile-"));
  const redis = store === "Redis" ? await startRedis(dir) : undefined;
  if (store === "Redis" && !redis) throw new Error("the Redis profile needs redis-server");
  try {
    const port = await freePort();
    const sqlite = benchGatewayConfig(dir, port);
    // on Redis the cache's second tier is that Redis too, as in the locations scenario
    const config = redis ? { ...sqlite, store: { type: "redis" as const, url: redis.url, key_prefix: "bench:", ...benchLease() } } : sqlite;
    writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
    const token = await registerBenchPartner(config);
    const profiles = path.join(dir, "profiles");
    const gateway = spawnOnServerCore(["--cpu-prof", "--cpu-prof-dir", profiles, CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
    let requests = 0;
    try {
      await waitForOutput(gateway, "listening on");
      const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?limit=50`;
      const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
      const sample = await fetch(url, { headers });
      if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}`);
      await sample.arrayBuffer();
      requests = Math.round((await load("profile", url, headers, seconds, { rate: PROFILE_RATE })).requestsPerSecond * seconds) + 1;
    } finally {
      await stop(gateway);
    }
    const file = readdirSync(profiles).find((f) => f.endsWith(".cpuprofile"));
    if (!file) throw new Error("the gateway wrote no CPU profile");
    // BENCH_CPU_PROF=<dir> keeps the profile there too (for DevTools), as the uncached and pull scenarios do
    if (process.env.BENCH_CPU_PROF) copyFileSync(path.join(profiles, file), path.join(process.env.BENCH_CPU_PROF, `cached-get-${store.toLowerCase()}-${file}`));
    return { ...perRequest(JSON.parse(readFileSync(path.join(profiles, file), "utf8")) as Profile, requests, top), requests };
  } finally {
    if (redis) await stop(redis.process);
    rmSync(dir, { recursive: true, force: true });
  }
};

/** Self time by function and place (file:line, shortened to the project or package), largest first, per request; idle left out. */
export const perRequest = (profile: Profile, requests: number, top: number): { frames: Frame[]; busyMicros: number } => {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const sampleMicros = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
  // from the first request's headers on: module loading and start-up are not the requests' time
  const first = Math.max(0, profile.samples.findIndex((id) => nodes.get(id)?.callFrame.functionName === "parserOnHeadersComplete"));
  const byFrame = new Map<string, number>();
  for (const id of profile.samples.slice(first)) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    const frame = `${functionName || "(anonymous)"} ${shortUrl(url)}${url ? `:${lineNumber + 1}` : ""}`.trim();
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + 1);
  }
  const micros = (hits: number) => (hits * sampleMicros) / Math.max(1, requests);
  const busy = [...byFrame.values()].reduce((sum, hits) => sum + hits, 0);
  const frames = [...byFrame.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, hits]) => ({ frame, micros: micros(hits) }));
  return { frames, busyMicros: micros(busy) };
};

const shortUrl = (url: string): string => {
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) return url.slice(modules + "node_modules/".length);
  // dist/ or another build directory (…/.tmp/x-dist/): the path inside the project
  const dist = /\/[\w.-]*dist\//.exec(url);
  if (dist) return url.slice(dist.index + dist[0].length);
  return url.replace(/^file:\/\//, "");
};

export const profileTable = (result: { frames: Frame[]; busyMicros: number; requests: number }): string[] => [
  `${result.requests} requests at a fixed ${PROFILE_RATE}/s under the profiler (which slows the gateway down): ${result.busyMicros.toFixed(1)} µs of CPU per request in all (idle left out).`,
  "",
  "| frame | self µs per request |",
  "|---|---:|",
  ...result.frames.map((f) => `| \`${f.frame.replace(/\|/g, "\\|")}\` | ${f.micros.toFixed(2)} |`),
];
