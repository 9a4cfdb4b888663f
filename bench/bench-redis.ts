import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { freePort, stop, waitForOutput } from "./support";

/** A throwaway redis-server on loopback for the Redis rows of the benchmarks (no persistence), on the server core when taskset exists. */
export const startBenchRedis = async (): Promise<{ url: string; pid?: number; stop(): Promise<void> }> => {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"];
  const child: ChildProcess = spawn("/usr/bin/taskset", ["-c", "0", "redis-server", ...args], { cwd: os.tmpdir(), stdio: ["ignore", "pipe", "pipe"] });
  child.once("error", () => undefined);
  await waitForOutput(child, "Ready to accept connections");
  // taskset execs redis-server: its pid is the server's (for its CPU time in /proc)
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop: () => stop(child) };
};
