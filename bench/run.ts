import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LoadResult } from "./support";
import { benchLocationsList } from "./locations-bench";
import { benchCachedLocations } from "./cache-bench";
import { benchPull, pullTable } from "./pull-bench";
import { benchPushFanOut, pushTable } from "./push-bench";

/**
 * `npm run bench`: every benchmark, each against a baseline measured in the
 * same run, written as a table to bench/RESULTS.md. BENCH_SECONDS sets the
 * length of each load run (default 10).
 */
const main = async () => {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  // The load generator takes core 1; servers are pinned to core 0.
  if (existsSync("/usr/bin/taskset")) execFileSync("/usr/bin/taskset", ["-pc", "1", String(process.pid)], { stdio: "ignore" });

  const sections: string[] = [];
  const list = await benchLocationsList(seconds);
  sections.push(table("Authenticated GET /locations?limit=50 vs raw node:http sending the same bytes", list));
  sections.push(table("Cached vs uncached GET /locations?limit=50, adapter artificially slow (50 ms per call)", await benchCachedLocations(seconds)));
  sections.push(pullTable(await benchPull()));
  sections.push(pushTable(await benchPushFanOut()));

  const report = [
    "# Benchmark results",
    "",
    `Run ${new Date().toISOString()} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}; ` +
      `autocannon, 50 connections, ${seconds} s per run, loopback; servers on core 0, load on core 1. Ratios are against the first row of each table, measured in the same run.`,
    "",
    ...sections,
  ].join("\n");
  const file = path.resolve(__dirname, "../../bench/RESULTS.md");
  writeFileSync(file, report + "\n");
  process.stdout.write(report + "\n");
};

const table = (title: string, rows: LoadResult[]): string => {
  const base = rows[0].requestsPerSecond;
  const lines = [
    `## ${title}`,
    "",
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
