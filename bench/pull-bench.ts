import { spawn } from "node:child_process";
import path from "node:path";
import { startBenchRedis } from "./bench-redis";
import { freePort, median, spawnOnServerCore, stop, waitForOutput } from "./support";

const MOCK_PARTNER = path.resolve(__dirname, "mock-partner.js");
const PULL_CLIENT = path.resolve(__dirname, "pull-client.js");
const PAGE_SIZE = 1000;
const SIZES = [10_000, 100_000];
const V8_OWN_GROWTH = "V8's own heap growth (server.heap_growth_percent: 0)";

export interface PullResult {
  name: string;
  objects: number;
  pages: number;
  ms: number;
  /** CPU time of the pulling process during the pull */
  cpuMs: number;
  peakRssMb: number;
  /** objects/s of the baseline pull of the same list, measured in the same run */
  baselinePerSecond: number;
  /** size of the list's JSON, to set the peak RSS against */
  listMb: number;
}

/** Runs pull-client.js in a process of its own (on the load core, like the parent) and reads its one JSON line. */
const measure = (
  mode: "baseline" | "gateway",
  listUrl: string,
  redisUrl?: string,
  heapGrowth?: number,
): Promise<{ objects: number; pages: number; ms: number; cpuMs: number; peakRssMb: number; bytes?: number }> =>
  new Promise((resolve, reject) => {
    // BENCH_CPU_PROF=<dir>: the gateway's pull writes a CPU profile there
    const profile = mode === "gateway" && process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
    const child = spawn(process.execPath, [...profile, PULL_CLIENT, mode, listUrl, redisUrl ?? "", ...(heapGrowth !== undefined ? [String(heapGrowth)] : [])], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = out.trim().split("\n").pop() ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line));
      else reject(new Error(`${mode} pull exited with ${code}: ${out}`));
    });
  });

type Measured = Awaited<ReturnType<typeof measure>>;

/** Runs of each pull (BENCH_PULL_RUNS, default 3), interleaved; each figure of a row is the median of its runs. */
const RUNS = Number(process.env.BENCH_PULL_RUNS ?? 3);


/** The median of each figure over the runs of one pull. */
const medianOf = (runs: Measured[]): Measured => ({
  objects: runs[0].objects,
  pages: runs[0].pages,
  ms: median(runs.map((r) => r.ms)),
  cpuMs: median(runs.map((r) => r.cpuMs)),
  peakRssMb: median(runs.map((r) => r.peakRssMb)),
  bytes: runs[0].bytes,
});

/**
 * A full sync pull of a mock partner's Location list (a child process on the
 * server core serving pre-serialised pages of PAGE_SIZE with Link headers):
 * the gateway's pull (validation, translation, upsert into the `local`
 * adapter on SQLite, page by page) against fetching and parsing the same
 * pages, at 10,000 and 100,000 objects, so the peak RSS shows whether memory
 * grows with the list. Every pull runs RUNS times, the baseline and the
 * gateway's in turn, so a burst of other work on the machine hits one run of
 * each rather than all runs of one.
 */
export const benchPull = async (stores: ("SQLite" | "Redis")[] = ["SQLite", "Redis"]): Promise<PullResult[]> => {
  const rows: PullResult[] = [];
  const redis = stores.includes("Redis") ? await startBenchRedis() : undefined;
  try {
    for (const total of SIZES) {
      const port = await freePort();
      const mock = spawnOnServerCore([MOCK_PARTNER, String(port), String(total), String(PAGE_SIZE)]);
      try {
        await waitForOutput(mock, "listening on", 60_000);
        const listUrl = `http://127.0.0.1:${port}/ocpi/2.3.0/sender/locations`;
        const runs = new Map<string, Measured[]>();
        const run = async (name: string, pull: () => Promise<Measured>) => {
          const measured = await pull();
          if (measured.objects !== total) throw new Error(`${name}: pulled ${measured.objects} objects instead of ${total}`);
          runs.set(name, [...(runs.get(name) ?? []), measured]);
        };
        for (let i = 0; i < RUNS; i++) {
          await run("baseline", () => measure("baseline", listUrl));
          for (const store of stores) {
            const redisUrl = store === "Redis" ? redis!.url : undefined;
            await run(store, () => measure("gateway", listUrl, redisUrl));
            // the same with V8's own heap growth (app/heap-growth.ts): what the default is there for
            await run(`${store} ${V8_OWN_GROWTH}`, () => measure("gateway", listUrl, redisUrl, 0));
          }
        }
        const baseline = medianOf(runs.get("baseline")!);
        const shared = { baselinePerSecond: (baseline.objects / baseline.ms) * 1000, listMb: (baseline.bytes ?? 0) / 1048576 };
        const count = total.toLocaleString("en-US");
        rows.push({ name: `raw fetch + JSON.parse, ${count} objects (baseline)`, ...baseline, ...shared });
        for (const store of stores) {
          rows.push({ name: `gateway sync pull into local adapter (${store}), ${count} objects`, ...medianOf(runs.get(store)!), ...shared });
          const own = `${store} ${V8_OWN_GROWTH}`;
          rows.push({ name: `the same, ${V8_OWN_GROWTH}`, ...medianOf(runs.get(own)!), ...shared });
        }
      } finally {
        await stop(mock);
      }
    }
  } finally {
    await redis?.stop();
  }
  return rows;
};

export const pullTable = (rows: PullResult[]): { title: string; lines: string[] } => ({
  title: `Full sync pull of a mock partner's Locations (${PAGE_SIZE} per page, Link headers) vs fetching the same pages`,
  lines: [
    `Each pull runs ${RUNS} times, each time in a fresh process, the baseline and the gateway's pulls in turn; every figure is the median of its runs. Peak RSS is that process's maximum resident set (Node itself included), to be set against the size of the list's JSON. The gateway's process sets V8's heap growth as \`ocpi-gateway start\` does (\`server.heap_growth_percent\`, default 100: app/heap-growth.ts); the rows marked "V8's own heap growth" leave V8's choice (\`0\`), as the baseline does. The ratio compares objects/s with the baseline row of the same size. CPU µs per object is the pulling process's user + system time during the pull (Redis's own time not included): on a machine shared with other work it varies less than the wall-clock rate.`,
    "",
    "| target | objects | pages | seconds | objects/s | ratio to baseline | CPU µs per object | list JSON MB | peak RSS MB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => {
      const perSecond = (r.objects / r.ms) * 1000;
      const cpu = ((r.cpuMs * 1000) / r.objects).toFixed(1);
      return `| ${r.name} | ${r.objects} | ${r.pages} | ${(r.ms / 1000).toFixed(1)} | ${Math.round(perSecond)} | ${(perSecond / r.baselinePerSecond).toFixed(2)} | ${cpu} | ${Math.round(r.listMb)} | ${Math.round(r.peakRssMb)} |`;
    }),
  ],
});
