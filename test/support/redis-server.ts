import { execFileSync, type ChildProcess } from "node:child_process";
import os from "node:os";
import { freePort } from "./free-ports";
import { spawnServer, stopChild, waitForOutput } from "./child-process";

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

/** A port below the ephemeral range, free again for a restart on the same URL (free-ports.ts). */
export { freePort };

function spawnRedisServer(port: number): Promise<ChildProcess> {
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"];
  const child = spawnServer("redis-server", args, { cwd: os.tmpdir(), stdio: ["ignore", "pipe", "pipe"] });
  return waitForOutput(child, "Ready to accept connections", { name: `redis-server on port ${port}`, timeoutMs: READY_TIMEOUT_MS });
}

export async function startRedis(): Promise<RedisServer> {
  assertRedisServerInstalled();
  const port = await freePort();
  let child: ChildProcess | undefined = await spawnRedisServer(port);
  const stop = async () => {
    if (child) await stopChild(child, "SIGTERM", STOP_TIMEOUT_MS);
    child = undefined;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async kill() {
      const running = child;
      child = undefined;
      if (running) await stopChild(running, "SIGKILL");
    },
    async restart() {
      await stop();
      child = await spawnRedisServer(port);
    },
  };
}
