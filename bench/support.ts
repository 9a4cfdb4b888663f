import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";

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

/** A bounded load run (duration and connections fixed) against one loopback URL. */
export const load = async (name: string, url: string, headers: Record<string, string>, seconds: number): Promise<LoadResult> => {
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

/** bench/RESULTS.md in the source tree, wherever the compiled bench runs from (dist/ or another outDir). */
export const RESULTS_FILE = process.env.BENCH_RESULTS ?? path.resolve(__dirname, "../../bench/RESULTS.md");

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
      "autocannon, 50 connections, loopback; servers on core 0, load on core 1. Ratios are against the baseline row of each table, measured in the same run. " +
      "Each section is rewritten by its own scenario (`npm run bench -- <scenario>`); the others are kept.",
  ].join("\n");
  writeFileSync(RESULTS_FILE, [header, ...sections.map((s) => s.text)].join("\n\n") + "\n");
};

const commitOf = (): string => {
  try {
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: path.dirname(RESULTS_FILE), stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: path.dirname(RESULTS_FILE), stdio: ["ignore", "pipe", "ignore"] }).toString().trim();
    return dirty ? `${head}+changes` : head;
  } catch {
    return "unknown";
  }
};
