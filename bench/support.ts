import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
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
