import { execFile, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { spawnServer, stopChild, waitForOutput } from "./child-process";
import { freePorts } from "./gateway-process";
import { assertRedisServerInstalled } from "./redis-server";

const run = promisify(execFile);
const READY_TIMEOUT_MS = 10_000;
const STATE_TIMEOUT_MS = 20_000;

/** A 3-master, 3-replica Redis Cluster on loopback, from the same redis-server binary as the other tests. */
export interface RedisCluster {
  /** redis://127.0.0.1:<port> of every node: the seeds a client is given */
  urls: string[];
  ports: number[];
  /** `redis-cli -p <port> <args>` */
  cli(port: number, ...args: string[]): Promise<string>;
  /** ports of the nodes that are masters now, as `port` sees the cluster */
  masters(port?: number): Promise<number[]>;
  /** the master serving `key` now */
  masterOf(key: string): Promise<number>;
  /** SIGKILL one node (a crash) */
  kill(port: number): Promise<void>;
  /** starts a killed node again on its port and its nodes.conf: it rejoins the cluster (a former master as a replica) */
  restart(port: number): Promise<void>;
  /** resolves once every running node reports cluster_state:ok and agrees on 3 masters, each with a replica in sync */
  waitHealthy(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A node on `port`, its cluster bus on `busPort`: named, not Redis's default of port + 10000, which may lie in the
 * kernel's ephemeral range (taken by any connection on the machine) or past 65535.
 */
const spawnNode = (port: number, busPort: number, dir: string): Promise<ChildProcess> => {
  const args = [
    "--port", String(port), "--cluster-port", String(busPort), "--bind", "127.0.0.1",
    "--cluster-enabled", "yes", "--cluster-config-file", path.join(dir, "nodes.conf"), "--cluster-node-timeout", "1000",
    "--appendonly", "no", "--save", "", "--daemonize", "no", "--dir", dir,
  ];
  const child = spawnServer("redis-server", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  return waitForOutput(child, "Ready to accept connections", { name: `cluster node on port ${port}`, timeoutMs: READY_TIMEOUT_MS });
};

/** Starts six nodes in temp dirs, joins them with `redis-cli --cluster create … --cluster-replicas 1`, waits for cluster_state:ok. */
export const startRedisCluster = async (): Promise<RedisCluster> => {
  assertRedisServerInstalled();
  const taken = await freePorts(12);
  const ports = taken.slice(0, 6);
  const busPorts = new Map(ports.map((port, i) => [port, taken[6 + i]]));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "redis-cluster-"));
  const dirs = new Map(ports.map((port) => [port, path.join(root, String(port))]));
  for (const dir of dirs.values()) fs.mkdirSync(dir);
  const nodes = new Map<number, ChildProcess>();
  const cli = async (port: number, ...args: string[]) => (await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args])).stdout;
  const running = () => [...nodes].filter(([, child]) => child.exitCode === null && child.signalCode === null).map(([port]) => port);

  const masters = async (port = running()[0]): Promise<number[]> =>
    (await cli(port, "cluster", "nodes"))
      .split("\n")
      .filter((line) => {
        const flags = line.split(" ")[2]?.split(",") ?? [];
        return flags.includes("master") && !flags.some((flag) => flag.startsWith("fail"));
      })
      .map((line) => Number(line.split(" ")[1].split("@")[0].split(":")[1]));

  const waitHealthy = async () => {
    const deadline = Date.now() + STATE_TIMEOUT_MS;
    for (;;) {
      const states = await Promise.all(running().map(async (port) => ({
        ok: (await cli(port, "cluster", "info").catch(() => "")).includes("cluster_state:ok"),
        masters: (await masters(port).catch(() => [])).length,
      })));
      // and every master has a replica in sync: writes that wait for one (WAIT 1) can be acknowledged
      const replicated = await Promise.all(
        (await masters().catch(() => [])).map(async (port) => /slave0:.*state=online/.test(await cli(port, "info", "replication").catch(() => ""))),
      );
      if (states.every((s) => s.ok && s.masters === 3) && replicated.length === 3 && replicated.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error(`Redis Cluster not healthy within ${STATE_TIMEOUT_MS} ms: ${JSON.stringify(states)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const stop = async () => {
    await Promise.all([...nodes.values()].map((child) => stopChild(child, "SIGTERM")));
    fs.rmSync(root, { recursive: true, force: true });
  };

  try {
    // each node is remembered as soon as it is up, so a failed start stops those that did start
    const started = await Promise.allSettled(ports.map(async (port) => nodes.set(port, await spawnNode(port, busPorts.get(port)!, dirs.get(port)!))));
    const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    await run("redis-cli", ["--cluster", "create", ...ports.map((p) => `127.0.0.1:${p}`), "--cluster-replicas", "1", "--cluster-yes"]);
    await waitHealthy();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    urls: ports.map((port) => `redis://127.0.0.1:${port}`),
    ports,
    cli,
    masters,
    async masterOf(key) {
      const slot = Number((await cli(running()[0], "cluster", "keyslot", key)).trim());
      const slots = JSON.parse(await cli(running()[0], "--json", "cluster", "slots")) as [number, number, [string, number]][];
      return slots.find(([from, to]) => slot >= from && slot <= to)![2][1];
    },
    async kill(port) {
      await stopChild(nodes.get(port)!, "SIGKILL");
    },
    async restart(port) {
      nodes.set(port, await spawnNode(port, busPorts.get(port)!, dirs.get(port)!));
    },
    waitHealthy,
    stop,
  };
};
