import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/**
 * Starting and stopping the servers the tests run as child processes
 * (redis-server, the Redis Cluster's nodes, mariadbd), so each of
 * redis-server.ts, redis-cluster.ts and mariadb.ts keeps only what is its own.
 */

export const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/** `spawn`, and SIGKILL the child if this test process exits first: a run that dies without teardown must leave no server behind. */
export function spawnServer(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  return child;
}

/**
 * Resolves once `child` (spawned with stdout and stderr piped) has written
 * `marker`; rejects, after SIGKILLing it, if it exits, cannot be spawned or
 * takes longer than `timeoutMs`. The error starts with `name` and ends with
 * all the child wrote.
 */
export function waitForOutput(child: ChildProcess, marker: string, options: { name: string; timeoutMs: number }): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let output = "";
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${options.name} ${reason}\n${output}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${options.timeoutMs} ms`), options.timeoutMs);
    const onExit = (code: number | null) => fail(`exited with code ${code} before it was ready`);
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes(marker)) return;
      clearTimeout(timer);
      child.off("exit", onExit);
      // Keep draining the pipes: a full pipe buffer would block the server's logging.
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

/**
 * Sends `signal` and waits for the exit; a no-op when the child has exited
 * already. With `killAfterMs`, a child still running by then is SIGKILLed, so
 * a hung shutdown cannot hang the test run.
 */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", killAfterMs?: number): Promise<void> {
  if (hasExited(child)) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill(signal);
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  await exited;
  clearTimeout(timer);
}
