import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import os from "node:os";

/** A private redis-server for tests (global setup, or tests that stop and restart Redis). */
export interface RedisServer {
  url: string;
  port: number;
  /** SIGTERM and wait for exit; a no-op when already stopped */
  stop(): Promise<void>;
  /** SIGKILL (a crash: no clean shutdown) and wait for exit; a no-op when already stopped */
  kill(): Promise<void>;
  /** stop (if running) and start again on the same port, so clients can reconnect to the same URL */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export function assertRedisServerInstalled(): void {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "pipe" });
  } catch (err) {
    throw new Error(`redis-server is required for the tests (apt-get install redis-server): ${(err as Error).message}`);
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function spawnRedisServer(port: number): Promise<ChildProcess> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"];
  const child = spawn("redis-server", args, { cwd: os.tmpdir(), stdio: ["ignore", "pipe", "pipe"] });
  // A test run that dies without teardown must not leave redis-server behind.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));

  return new Promise((resolve, reject) => {
    let output = "";
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`redis-server on port ${port} ${reason}\n${output}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    const onExit = (code: number | null) => fail(`exited with code ${code} before it was ready`);
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes("Ready to accept connections")) return;
      clearTimeout(timer);
      child.off("exit", onExit);
      // Keep draining the pipes: a full pipe buffer would block redis-server's logging.
      child.stdout!.off("data", onOutput).resume();
      child.stderr!.off("data", onOutput).resume();
      resolve(child);
    };
    child.once("exit", onExit);
    child.once("error", (err) => fail(`could not be spawned: ${err.message}`));
    child.stdout!.on("data", onOutput);
    child.stderr!.on("data", onOutput);
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

export async function startRedis(): Promise<RedisServer> {
  assertRedisServerInstalled();
  const port = await freePort();
  let child: ChildProcess | undefined = await spawnRedisServer(port);
  const stop = async () => {
    if (child) await stopProcess(child);
    child = undefined;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async kill() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
      running.kill("SIGKILL");
      await exited;
    },
    async restart() {
      await stop();
      child = await spawnRedisServer(port);
    },
  };
}
