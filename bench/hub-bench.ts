import "reflect-metadata";
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { DEFAULT_INBOUND, type GatewayConfig, type PartnerConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { benchGatewayConfig, registerBenchPartner } from "./bench-gateway";
import { HOST, freePort, load, spawnOnServerCore, stop, waitForOutput, type LoadResult, type RatioBar } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");

/** The rate of the latency runs: one both paths sustain, so the added latency is the hub's and not a queue's. */
export const HUB_FIXED_RATE = 500;
export const HUB_RATIO_TARGET = 0.8;

export interface HubBench {
  rows: LoadResult[];
  /** one request at a time over one kept-alive connection, 300 each: latency without any queue */
  sequential: { direct: Percentiles; viaHub: Percentiles };
  /** CPU ms per 1,000 requests of each process during the full-load runs */
  cpu: { direct: number; hubSelf: number; hubCpo: number };
  ratios: RatioBar[];
}

const partner = (id: string, extra: Partial<PartnerConfig>): PartnerConfig => ({
  id,
  versions: ["2.3.0"],
  token_encoding: "auto",
  header_prefix: "OCPI",
  strictness: "reject",
  callback_hosts: [],
  ...extra,
});

/**
 * Issue #13: authenticated `GET /ocpi/2.3.0/sender/locations?limit=50`
 * (1,000 Locations, a cached page) straight to a CPO gateway, and the same
 * through a hub gateway forwarding to it (routing headers to the CPO's
 * party; both on 2.3.0, so streamed), in one run: full
 * load for throughput, a fixed rate and one request at a time for the
 * hub's added latency. Both gateways are pinned to the server core, so
 * through the hub that core runs two processes per request: the CPU each
 * one spends per request (from /proc) says what the hub costs apart from
 * that. Then the same with an uncached page (read from the CPO's store
 * each time) and the hub on a core of its own, shared with the load
 * generator only.
 */
export const benchHub = async (seconds: number): Promise<HubBench> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-bench-hub-"));
  const children: ChildProcess[] = [];
  try {
    const cached = await startPair(dir, "cached", children, { cpo: 0, hub: 0 });
    const { direct, viaHub } = cached;
    const before = cpuMs(cached.cpo);
    const full = await load("direct to the CPO (baseline)", direct.url, direct.headers, seconds);
    const directCpu = cpuMs(cached.cpo) - before;
    const [cpoBefore, hubBefore] = [cpuMs(cached.cpo), cpuMs(cached.hub)];
    const forwarded = await load("through the hub (streamed, same version)", viaHub.url, viaHub.headers, seconds);
    const [cpoCpu, hubCpu] = [cpuMs(cached.cpo) - cpoBefore, cpuMs(cached.hub) - hubBefore];
    const directFixed = await load(`direct at a fixed ${HUB_FIXED_RATE} req/s`, direct.url, direct.headers, seconds, { rate: HUB_FIXED_RATE });
    const forwardedFixed = await load(`through the hub at a fixed ${HUB_FIXED_RATE} req/s`, viaHub.url, viaHub.headers, seconds, { rate: HUB_FIXED_RATE });
    const sequential = { direct: await oneAtATime(direct), viaHub: await oneAtATime(viaHub) };

    // The same with a page the CPO reads from its store every time, and the hub on a core of its own (shared with the load generator).
    const uncached = await startPair(dir, "uncached", children, { cpo: 0, hub: 1 });
    const uncachedDirect = await load("direct to the CPO, uncached page (baseline of the next row)", uncached.direct.url, uncached.direct.headers, seconds);
    const uncachedForwarded = await load("through the hub, uncached page, hub on the load generator's core", uncached.viaHub.url, uncached.viaHub.headers, seconds);

    const per1000 = (ms: number, r: LoadResult) => (1000 * ms) / (r.requestsPerSecond * seconds);
    const ratio = (r: LoadResult, base: LoadResult) => r.requestsPerSecond / base.requestsPerSecond;
    return {
      rows: [full, forwarded, directFixed, forwardedFixed, uncachedDirect, uncachedForwarded],
      sequential,
      cpu: { direct: per1000(directCpu, full), hubSelf: per1000(hubCpu, forwarded), hubCpo: per1000(cpoCpu, forwarded) },
      ratios: [
        { label: "through the hub / direct, cached page (one core)", ratio: ratio(forwarded, full), target: HUB_RATIO_TARGET },
        { label: "through the hub / direct, uncached page (hub's own core)", ratio: ratio(uncachedForwarded, uncachedDirect), target: HUB_RATIO_TARGET },
      ],
    };
  } finally {
    for (const child of children) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
};

export interface Target {
  url: string;
  headers: Record<string, string>;
}

/**
 * A CPO gateway (1,000 Locations; `uncached`: cache TTL 0, every page read
 * from its store) and a hub gateway registered with each other and with a
 * bench client each, as credentials exchanges would leave them, each on the
 * core given (0: the server core, 1: the load generator's).
 */
export const startPair = async (parent: string, kind: "cached" | "uncached", children: ChildProcess[], cores: { cpo: 0 | 1; hub: 0 | 1 }) => {
  const cpoDir = mkdtempSync(path.join(parent, `cpo-${kind}-`));
  const hubDir = mkdtempSync(path.join(parent, `hub-${kind}-`));
  const [cpoPort, hubPort] = [await freePort(), await freePort()];
  const cpoBase = benchGatewayConfig(cpoDir, cpoPort);
  // behind a hub every connection comes from the hub (README: raise the per-client cap or set 0 there)
  const cpoConfig: GatewayConfig = {
    ...cpoBase,
    server: { ...cpoBase.server, inbound: { ...DEFAULT_INBOUND, max_connections_per_client: 0 } },
    ...(kind === "uncached" ? { cache: { ttl_seconds: { locations: 0 }, max_entries: 1000, redis: false } } : {}),
    partners: [...cpoBase.partners, partner("hub", { roles: [{ role: "HUB", party: "NLHUB" }] })],
  };
  const directToken = await registerBenchPartner(cpoConfig);
  const hubToken = await register(cpoConfig, "hub", {
    version: "2.3.0",
    versionsUrl: `http://${HOST}:1/versions`,
    endpoints: [],
    roles: [{ country_code: "NL", party_id: "HUB", role: "HUB", business_details: { name: "Bench hub" } }],
    tokenToPartner: "unused",
  });

  const hubConfig: GatewayConfig = {
    ...cpoBase,
    server: { ...cpoBase.server, port: hubPort, public_url: `http://${HOST}:${hubPort}`, hub_party_id: "NLHUB", hub: { offline_after_ms: 60_000, probe_interval_ms: 600_000 } },
    parties: [{ country_code: "NL", party_id: "HUB", role: "OTHER", business_details: { name: "Bench hub" } }],
    store: { type: "sqlite", path: path.join(hubDir, "gateway.db") },
    modules: {},
    adapters: {},
    partners: [
      // not the direct client's party: the CPO takes from the hub only parties it does not know from elsewhere
      partner("bench", { roles: [{ role: "EMSP", party: "DEEMX" }] }),
      partner("cpo", { versions_url: `http://${HOST}:${cpoPort}/ocpi/versions`, roles: [{ role: "CPO", party: "NLGWY" }] }),
    ],
  };
  const senderToken = await register(hubConfig, "bench", {
    version: "2.3.0",
    versionsUrl: `http://${HOST}:1/versions`,
    endpoints: [],
    roles: [{ country_code: "DE", party_id: "EMX", role: "EMSP", business_details: { name: "Bench eMSP behind the hub" } }],
    tokenToPartner: "unused",
  });
  await register(hubConfig, "cpo", {
    version: "2.3.0",
    versionsUrl: `http://${HOST}:${cpoPort}/ocpi/versions`,
    endpoints: [{ identifier: "locations", role: "SENDER", url: `http://${HOST}:${cpoPort}/ocpi/2.3.0/sender/locations` }],
    roles: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench CPO" } }],
    tokenToPartner: hubToken,
  });

  const start = async (name: string, config: GatewayConfig, where: string, core: 0 | 1): Promise<number> => {
    writeFileSync(path.join(where, `${name}.yaml`), stringify(config));
    // BENCH_CPU_PROF=<dir>: each gateway writes a CPU profile there when it stops
    const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF, "--cpu-prof-name", `${name}-${kind}.cpuprofile`] : [];
    const args = [...profile, CLI, "start", "--config", path.join(where, `${name}.yaml`)];
    const child = core === 0 ? spawnOnServerCore(args) : spawnOnLoadCore(args);
    children.push(child);
    await waitForOutput(child, "listening on");
    return child.pid!;
  };
  const cpo = await start("cpo", cpoConfig, cpoDir, cores.cpo);
  const hub = await start("hub", hubConfig, hubDir, cores.hub);

  const direct: Target = { url: `http://${HOST}:${cpoPort}/ocpi/2.3.0/sender/locations?limit=50`, headers: { Authorization: `Token ${Buffer.from(directToken).toString("base64")}` } };
  const viaHub: Target = {
    url: `http://${HOST}:${hubPort}/ocpi/2.3.0/sender/locations?limit=50`,
    headers: {
      Authorization: `Token ${Buffer.from(senderToken).toString("base64")}`,
      "OCPI-from-country-code": "DE",
      "OCPI-from-party-id": "EMX",
      "OCPI-to-country-code": "NL",
      "OCPI-to-party-id": "GWY",
    },
  };
  if ((await sample(direct)) !== (await sample(viaHub))) throw new Error("the page through the hub differs from the direct one");
  return { direct, viaHub, cpo, hub, cpoOrigin: `http://${HOST}:${cpoPort}` };
};

/** A process on the load generator's core (core 1), when taskset exists. */
export const spawnOnLoadCore = (args: string[]): ChildProcess =>
  existsSync(TASKSET)
    ? spawn(TASKSET, ["-c", "1", process.execPath, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    : spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
const TASKSET = "/usr/bin/taskset";

/** A partner's registration written in the store the way a credentials exchange would leave it; resolves with the token it was issued. */
const register = async (config: GatewayConfig, partnerId: string, result: Parameters<Gateway["registry"]["recordRegistration"]>[1]): Promise<string> => {
  const gateway = await Gateway.create(config);
  try {
    const token = await gateway.registry.issueToken(partnerId);
    await gateway.registry.recordRegistration(partnerId, result);
    return token;
  } finally {
    await gateway.close();
  }
};

/** One page, checked to be a page of 50; its data, to compare the two paths. */
export const sample = async (target: Target): Promise<string> => {
  const response = await fetch(target.url, { headers: target.headers });
  const body = (await response.json()) as { status_code?: number; data?: unknown[] };
  if (response.status !== 200 || body.status_code !== 1000 || body.data?.length !== 50) throw new Error(`${target.url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return JSON.stringify(body.data);
};

interface Percentiles {
  p50: number;
  p99: number;
}

/** 300 requests one after the other on one kept-alive connection; latency percentiles in ms. */
const oneAtATime = async (target: Target): Promise<Percentiles> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < 300; i++) {
      const start = process.hrtime.bigint();
      await new Promise<void>((resolve, reject) =>
        http.get(target.url, { headers: target.headers, agent }, (res) => res.resume().on("end", resolve)).on("error", reject),
      );
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  return { p50: times[149], p99: times[296] };
};

/** User plus system CPU time of a process so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
export const cpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** The section's table: the added latency at a fixed rate, the throughput ratio at full load, CPU per request of each process. */
export const hubTable = (result: HubBench): { title: string; lines: string[] } => {
  const [full, forwarded, directFixed, forwardedFixed, uncachedDirect, uncachedForwarded] = result.rows;
  const ratio = forwarded.requestsPerSecond / full.requestsPerSecond;
  const uncachedRatio = uncachedForwarded.requestsPerSecond / uncachedDirect.requestsPerSecond;
  const ratioOf = (i: number): string => (i === 1 ? ratio.toFixed(2) : i === 5 ? uncachedRatio.toFixed(2) : i === 0 || i === 4 ? "1.00" : "—");
  return {
    title: "Hub forwarding",
    lines: [
      `Authenticated \`GET /ocpi/2.3.0/sender/locations?limit=50\` (1,000 Locations, cached page) straight to a CPO gateway and through a hub gateway forwarding it ` +
        `(routing headers to the CPO's party, both 2.3.0: streamed), one run (\`npm run bench -- hub\`). Both gateways are pinned to the one server core, ` +
        `so through the hub that core runs both processes for every request; the last two rows serve an uncached page (cache TTL 0) and run the hub on the load generator's core. Target: ≥ ${HUB_RATIO_TARGET} × direct.`,
      "",
      "| path | requests/s | p50 ms | p99 ms | × direct | non-2xx | errors |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...result.rows.map(
        (r, i) =>
          `| ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${ratioOf(i)} | ${r.non2xx} | ${r.errors} |`,
      ),
      "",
      `Added by the hub at ${HUB_FIXED_RATE} req/s: p50 ${(forwardedFixed.p50 - directFixed.p50).toFixed(1)} ms, p99 ${(forwardedFixed.p99 - directFixed.p99).toFixed(1)} ms. ` +
        `One request at a time (300, one kept-alive connection): direct p50 ${fmt(result.sequential.direct.p50)} ms, p99 ${fmt(result.sequential.direct.p99)} ms; ` +
        `through the hub p50 ${fmt(result.sequential.viaHub.p50)} ms, p99 ${fmt(result.sequential.viaHub.p99)} ms ` +
        `(added p50 ${fmt(result.sequential.viaHub.p50 - result.sequential.direct.p50)} ms, p99 ${fmt(result.sequential.viaHub.p99 - result.sequential.direct.p99)} ms). ` +
        `Throughput through the hub: ${ratio.toFixed(2)} × direct on a cached page with both on one core; ${uncachedRatio.toFixed(2)} × direct on an uncached page with the hub on a core of its own.`,
      "",
      "| CPU per 1,000 requests (full load, /proc utime+stime) | ms |",
      "|---|---:|",
      `| CPO, direct | ${result.cpu.direct.toFixed(0)} |`,
      `| CPO, behind the hub | ${result.cpu.hubCpo.toFixed(0)} |`,
      `| hub, forwarding | ${result.cpu.hubSelf.toFixed(0)} |`,
    ],
  };
};

const fmt = (ms: number): string => ms.toFixed(2);
