import path from "node:path";
import os from "node:os";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { ChildProcess } from "node:child_process";
import { HOST, freePort, load, spawnOnServerCore, stop, waitForOutput, type LoadResult, type RatioBar } from "./support";
import { cpuMs, sample, startPair, type Target } from "./hub-bench";
import { perRequest, type Frame, type Profile } from "./cpu-profile";

const STREAM_PROXY = path.resolve(__dirname, "stream-proxy.js");

/** Issue #26, target 2: a forwarded GET through the hub against a minimal node:http streaming proxy. */
export const PROXY_RATIO_TARGET = 0.8;

export interface ForwarderRun {
  load: LoadResult;
  /** the forwarding process's CPU (user + system, /proc) per request served, µs */
  cpuMicros: number;
  /** the receiver's CPU per request, µs (on the load generator's core) */
  receiverMicros: number;
}

/** A forwarder's CPU profile over every request it served (BENCH_CPU_PROF): the frames with the most self time, µs per request. */
export interface ForwarderProfile {
  frames: Frame[];
  busyMicros: number;
  requests: number;
}

export interface HubProxyBench {
  rounds: { proxy: ForwarderRun; hub: ForwarderRun }[];
  ratios: RatioBar[];
  profiles?: { hub: ForwarderProfile; proxy: ForwarderProfile };
}

/**
 * Issue #26 target 2: the same authenticated `GET …/locations?limit=50`
 * (a cached 29 KB page of a CPO gateway, the receiver) sent through a
 * minimal streaming reverse proxy (bench/stream-proxy.ts) and through a hub
 * gateway forwarding it from one partner to the CPO's party. The forwarder
 * under test has the server core to itself (pinned); the receiver runs on
 * the load generator's core, so what is compared is the forwarder's own
 * work. `rounds` alternations (proxy, then hub) after a warm-up of each,
 * each run measuring requests/s and the forwarder's CPU per request.
 */
export const benchHubVsProxy = async (seconds: number, rounds = 2): Promise<HubProxyBench> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-hub-proxy-"));
  const children: ChildProcess[] = [];
  // requests each forwarder served, for its profile's µs per request
  const served = { hub: 1, proxy: 1 };
  let measured: HubProxyBench["rounds"] = [];
  try {
    const pair = await startPair(dir, "cached", children, { cpo: 1, hub: 0 });
    const proxyPort = await freePort();
    // BENCH_CPU_PROF=<dir>: the proxy writes a CPU profile there too when it stops, beside the gateways'
    const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF, "--cpu-prof-name", "stream-proxy.cpuprofile"] : [];
    const proxy = spawnOnServerCore([...profile, STREAM_PROXY, String(proxyPort), pair.cpoOrigin]);
    children.push(proxy);
    await waitForOutput(proxy, "listening on");
    // the client's own headers pass through the proxy unchanged: the direct client's token, which the CPO knows
    const viaProxy: Target = { url: `http://${HOST}:${proxyPort}/ocpi/2.3.0/sender/locations?limit=50`, headers: pair.direct.headers };
    if ((await sample(viaProxy)) !== (await sample(pair.viaHub))) throw new Error("the page through the hub differs from the one through the proxy");

    const run = async (name: string, target: Target, pid: number, length: number): Promise<ForwarderRun> => {
      const [before, receiverBefore] = [cpuMs(pid), cpuMs(pair.cpo)];
      const result = await load(name, target.url, target.headers, length);
      const requests = Math.max(1, result.requestsPerSecond * length);
      served[pid === pair.hub ? "hub" : "proxy"] += requests;
      return { load: result, cpuMicros: (1000 * (cpuMs(pid) - before)) / requests, receiverMicros: (1000 * (cpuMs(pair.cpo) - receiverBefore)) / requests };
    };
    // both sides' code warm and their pools of connections open
    await run("warm-up", viaProxy, proxy.pid!, 2);
    await run("warm-up", pair.viaHub, pair.hub, 2);
    for (let i = 0; i < rounds; i++) {
      const viaStreamProxy = await run("minimal node:http streaming proxy (baseline)", viaProxy, proxy.pid!, seconds);
      const viaHub = await run("hub gateway forwarding (streamed, same version)", pair.viaHub, pair.hub, seconds);
      measured.push({ proxy: viaStreamProxy, hub: viaHub });
    }
  } finally {
    for (const child of children) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
  const sum = (pick: (r: HubProxyBench["rounds"][number]) => number) => measured.reduce((total, r) => total + pick(r), 0);
  const throughput = sum((r) => r.hub.load.requestsPerSecond) / sum((r) => r.proxy.load.requestsPerSecond);
  const cpu = sum((r) => r.proxy.cpuMicros) / sum((r) => r.hub.cpuMicros);
  return {
    rounds: measured,
    ratios: [
      { label: "hub / streaming proxy, requests/s (one core)", ratio: throughput, target: PROXY_RATIO_TARGET },
      { label: "hub / streaming proxy, by CPU per request", ratio: cpu, target: PROXY_RATIO_TARGET },
    ],
    profiles: profilesOf(served),
  };
};

/** The profiles the hub and the proxy wrote when they stopped (BENCH_CPU_PROF=<dir>), per request each served; none without. */
const profilesOf = (served: { hub: number; proxy: number }): HubProxyBench["profiles"] => {
  const dir = process.env.BENCH_CPU_PROF;
  const read = (file: string, requests: number): ForwarderProfile | undefined => {
    const at = dir && path.join(dir, file);
    if (!at || !existsSync(at)) return undefined;
    return { ...perRequest(JSON.parse(readFileSync(at, "utf8")) as Profile, requests, 15), requests: Math.round(requests) };
  };
  const [hub, proxy] = [read("hub-cached.cpuprofile", served.hub), read("stream-proxy.cpuprofile", served.proxy)];
  return hub && proxy ? { hub, proxy } : undefined;
};

/** The section's table: each round's two runs, requests/s and CPU per request, and the ratios over all rounds. */
export const hubProxyTable = (result: HubProxyBench): { title: string; lines: string[] } => {
  const rows = result.rounds.flatMap((round, i) =>
    [round.proxy, round.hub].map(
      (r) =>
        `| ${i + 1} | ${r.load.name} | ${Math.round(r.load.requestsPerSecond)} | ${r.load.p50} | ${r.load.p99} | ${r.cpuMicros.toFixed(0)} | ${r.receiverMicros.toFixed(0)} | ${r.load.non2xx} | ${r.load.errors} |`,
    ),
  );
  const [throughput, cpu] = result.ratios;
  const met = (bar: RatioBar) => (bar.ratio >= (bar.target ?? 0) ? "met" : "**not met**");
  return {
    title: "Hub forwarding vs a minimal streaming reverse proxy",
    lines: [
      "Issue #26 target 2: authenticated `GET /ocpi/2.3.0/sender/locations?limit=50` (a CPO gateway's cached 29 KB page: the receiver) through a minimal node:http " +
        "streaming reverse proxy (bench/stream-proxy.ts: `http.request` piped both ways, kept-alive connections, no checks) and through the hub gateway forwarding it " +
        "from one partner to the CPO's party (admission, routing headers, host policy, body limit, header rewriting), one run (`npm run bench -- hub`). " +
        "The forwarder under test is alone on the server core; the receiver shares the load generator's core. CPU per request: the forwarder's user + system time (/proc) over the run. " +
        `Target: ≥ ${PROXY_RATIO_TARGET} × the proxy in requests/s and in CPU per request.`,
      "",
      "| round | path | requests/s | p50 ms | p99 ms | forwarder CPU µs/request | receiver CPU µs/request | non-2xx | errors |",
      "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
      ...rows,
      "",
      `Over all rounds: requests/s ${throughput.ratio.toFixed(2)} × the proxy (${met(throughput)}); CPU per request ${cpu.ratio.toFixed(2)} × the proxy's (proxy µs / hub µs, ${met(cpu)}).`,
      ...(result.profiles ? profileLines(result.profiles) : []),
    ],
  };
};

/** Both forwarders' top frames side by side (node --cpu-prof, which slows them: µs here are not the table's). */
const profileLines = (profiles: NonNullable<HubProxyBench["profiles"]>): string[] => {
  const cell = (frame?: Frame) => (frame ? `\`${frame.frame.replace(/\|/g, "\\|")}\` | ${frame.micros.toFixed(1)}` : " | ");
  return [
    "",
    `CPU profiles of this run (BENCH_CPU_PROF; under the profiler): the hub ${profiles.hub.busyMicros.toFixed(0)} µs per request in all (${profiles.hub.requests} requests), ` +
      `the proxy ${profiles.proxy.busyMicros.toFixed(0)} µs (${profiles.proxy.requests}); the frames with the most self time, µs per request:`,
    "",
    "| hub frame | µs | proxy frame | µs |",
    "|---|---:|---|---:|",
    ...profiles.hub.frames.map((frame, i) => `| ${cell(frame)} | ${cell(profiles.proxy.frames[i])} |`),
  ];
};
