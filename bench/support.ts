import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { pacedLoad } from "./paced-load";

/** Loopback only: benchmarks never leave this machine. */
export const HOST = "127.0.0.1";

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const TASKSET = "/usr/bin/taskset";

/** Servers run on core 0 and the load generator on core 1, so they do not compete (when taskset exists). */
export const spawnOnServerCore = (args: string[], env: NodeJS.ProcessEnv = process.env): ChildProcess =>
  existsSync(TASKSET)
    ? spawn(TASKSET, ["-c", "0", process.execPath, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });

export const waitForOutput = (child: ChildProcess, text: string, timeoutMs = 20_000): Promise<void> =>
  new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for "${text}"; output: ${seen}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited with ${code} before "${text}"; output: ${seen}`)));
  });

export const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/**
 * A bounded load run (duration and connections fixed) against one loopback
 * URL: as many requests as the server answers (autocannon, closed loop), or
 * with `rate` that many per second in all, evenly spaced and each timed from
 * when it was issued (pacedLoad: open loop, for latency at a given load).
 */
export const load = async (
  name: string,
  url: string,
  headers: Record<string, string>,
  seconds: number,
  options: { rate?: number } = {},
): Promise<LoadResult> => {
  if (options.rate) {
    // a second unrecorded first: the pool's connections opened and both sides' code warm, as in a full-load run
    await pacedLoad(url, headers, 1, options.rate);
    return { name, ...(await pacedLoad(url, headers, seconds, options.rate)) };
  }
  const result = await autocannon({ url, headers, connections: 50, duration: seconds });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
};

/** A throwaway redis-server on a free loopback port (no persistence), or undefined when none is installed. */
export const startRedis = async (dir: string): Promise<{ url: string; process: ChildProcess } | undefined> => {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
  } catch {
    return undefined;
  }
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", HOST, "--save", "", "--appendonly", "no"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  await waitForOutput(child, "Ready to accept connections");
  return { url: `redis://${HOST}:${port}`, process: child };
};

/** bench/RESULTS.md in the source tree: the compiled bench runs from dist/bench, two folders below the root. */
export const RESULTS_FILE = process.env.BENCH_RESULTS ?? path.resolve(__dirname, "..", "..", "bench", "RESULTS.md");

/**
 * Writes one section (`## <section>` and its lines) into bench/RESULTS.md,
 * replacing the section of that title and keeping every other one, so
 * scenarios run one at a time (`npm run bench -- <scenario>`) and by
 * different people add up to one table. The header line says when, where
 * and at which commit the last section was written; each section says its
 * own run time.
 */
export const writeResults = (section: string, rows: string | string[]): void => {
  const body = (Array.isArray(rows) ? rows.join("\n") : rows).trim();
  const existing = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, "utf8") : "";
  const parts = existing.split(/^(?=## )/m);
  const sections = parts.slice(1).map((text) => ({ title: text.slice(3, text.indexOf("\n")).trim(), text: text.trimEnd() }));
  const stamp = `_${new Date().toISOString()}, commit ${commitOf()}_`;
  const text = `## ${section}\n\n${stamp}\n\n${body}`;
  const at = sections.findIndex((s) => s.title === section);
  if (at >= 0) sections[at] = { title: section, text };
  else sections.push({ title: section, text });
  const header = [
    "# Benchmark results",
    "",
    `Last written ${new Date().toISOString()} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, commit ${commitOf()}; ` +
      "autocannon, 50 connections (fixed-rate rows: evenly paced, bench/paced-load.ts), loopback; servers on core 0, load on core 1. Ratios are against the baseline row of each table, measured in the same run. " +
      "Each section is rewritten by its own scenario (`npm run bench -- <scenario>`); the others are kept.",
  ].join("\n");
  writeFileSync(RESULTS_FILE, [header, ...sections.map((s) => s.text)].join("\n\n") + "\n");
};

const commitOf = (): string => {
  try {
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: __dirname, stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: __dirname, stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    return dirty ? `${head}+changes` : head;
  } catch {
    return "unknown";
  }
};

/** One bar of bench/ratios.svg: a measured ratio and the target it is held against (if any). */
export interface RatioBar {
  label: string;
  ratio: number;
  /** the ratio the issue asks for at least */
  target?: number;
}

const RATIOS_FILE = path.join(path.dirname(RESULTS_FILE), "ratios.json");
const RATIOS_SVG = path.join(path.dirname(RESULTS_FILE), "ratios.svg");

/**
 * Records the ratios of one section (replacing that section's, keeping the
 * others: bench/ratios.json) and redraws bench/ratios.svg from all of them:
 * one horizontal bar per ratio, 1.0 (the baseline) and each target marked.
 */
export const writeRatios = (section: string, bars: RatioBar[]): void => {
  const all = (existsSync(RATIOS_FILE) ? JSON.parse(readFileSync(RATIOS_FILE, "utf8")) : {}) as Record<string, RatioBar[]>;
  all[section] = bars;
  writeFileSync(RATIOS_FILE, JSON.stringify(all, null, 2) + "\n");
  writeFileSync(RATIOS_SVG, ratiosSvg(all));
};

const escapeXml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The chart as SVG text (no dependency): sections as headings, a bar per ratio on one shared scale. */
export const ratiosSvg = (sections: Record<string, RatioBar[]>): string => {
  const labelWidth = 430;
  const plotWidth = 420;
  const barHeight = 18;
  const gap = 6;
  const max = Math.max(1.2, ...Object.values(sections).flatMap((bars) => bars.flatMap((b) => [b.ratio, b.target ?? 0]))) * 1.05;
  const x = (ratio: number) => labelWidth + (plotWidth * ratio) / max;
  const parts: string[] = [];
  let y = 30;
  for (const [section, bars] of Object.entries(sections)) {
    y += 10;
    parts.push(`<text x="8" y="${y + 12}" font-weight="bold">${escapeXml(section)}</text>`);
    y += 22;
    for (const bar of bars) {
      const met = bar.target === undefined || bar.ratio >= bar.target;
      parts.push(`<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end">${escapeXml(bar.label)}</text>`);
      parts.push(`<rect x="${labelWidth}" y="${y}" width="${(x(bar.ratio) - labelWidth).toFixed(1)}" height="${barHeight}" fill="${met ? "#3b7d3b" : "#b5523b"}"/>`);
      parts.push(`<text x="${(x(bar.ratio) + 4).toFixed(1)}" y="${y + 13}">${bar.ratio.toFixed(2)}${bar.target !== undefined ? ` (target ≥ ${bar.target})` : ""}</text>`);
      if (bar.target !== undefined) parts.push(`<line x1="${x(bar.target).toFixed(1)}" x2="${x(bar.target).toFixed(1)}" y1="${y - 2}" y2="${y + barHeight + 2}" stroke="#000" stroke-width="2"/>`);
      y += barHeight + gap;
    }
  }
  const height = y + 30;
  const width = labelWidth + plotWidth + 160;
  const one = x(1).toFixed(1);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="8" y="18" font-size="14" font-weight="bold">Benchmark ratios to their baselines (bench/RESULTS.md); black marks: targets</text>`,
    `<line x1="${one}" x2="${one}" y1="30" y2="${y}" stroke="#888" stroke-dasharray="4 3"/>`,
    `<text x="${one}" y="${y + 16}" text-anchor="middle" fill="#555">1.0 = baseline</text>`,
    ...parts,
    "</svg>",
    "",
  ].join("\n");
};

/** The median of `values` (the upper one of an even count). */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
