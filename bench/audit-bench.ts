import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import autocannon from "autocannon";
import type { GatewayConfig, StoreConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { CdrAuditing } from "../plugins/cdrs/audit/cdr-auditing";
import { startBenchRedis } from "./bench-redis";
import { benchCdr, queuedBenchCdr } from "./audit-cdrs";
import { HOST, freePort, spawnOnServerCore, stop, waitForOutput } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");
const DRAIN = path.resolve(__dirname, "audit-drain.js");
const ADMIN = "bench-audit-admin-token";

export interface DrainRow {
  store: "SQLite" | "Redis";
  count: number;
  seconds: number;
  cpuSeconds: number;
  verdicts: Record<string, number>;
}

export interface LatencyRow {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CDRs the worker audited while the load ran */
  audited: number;
}

export interface AuditBenchResult {
  drains: DrainRow[];
  latency: LatencyRow[];
  loadAverage: number[];
}

const drainOn = (store: StoreConfig, count: number): Promise<DrainRow> =>
  new Promise((resolve, reject) => {
    const child = spawnOnServerCore([...(process.env.BENCH_AUDIT_PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_AUDIT_PROFILE}`] : []), DRAIN, JSON.stringify(store), String(count)]);
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{")) return reject(new Error(`audit drain exited with ${code}: ${out}`));
      resolve({ store: store.type === "redis" ? "Redis" : "SQLite", ...JSON.parse(line) });
    });
  });

/** We are the eMSP DE/TNM; the partner `bench` is the CPO BE/BEC whose CDRs are audited. */
const gatewayConfig = (port: number, store: StoreConfig): GatewayConfig => ({
  server: { port, host: HOST, public_url: `http://${HOST}:${port}`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn", admin_token: ADMIN },
  parties: [{ country_code: "DE", party_id: "TNM", role: "EMSP", business_details: { name: "Bench eMSP" } }],
  store,
  modules: { cdrs: { adapter: "local" } },
  adapters: { local: {} },
  partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
});

const auditedSoFar = async (port: number): Promise<number> => {
  const res = await fetch(`http://${HOST}:${port}/admin/v1/audit/cdrs?limit=1`, { headers: { Authorization: `Bearer ${ADMIN}` } });
  return ((await res.json()) as { data: { total: number } }).data.total;
};

/**
 * The partner's POST of a CDR answered by a gateway process whose audit worker is idle, then by one that has
 * `queued` CDRs to audit from its start (the worker drains them while the partner posts): the audit runs in the
 * background of the same process, so what it costs the partner shows as latency here.
 */
const latencyRows = async (seconds: number, queued: number): Promise<LatencyRow[]> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-audit-"));
  const port = await freePort();
  const config = gatewayConfig(port, { type: "sqlite", path: path.join(dir, "gateway.db") });
  writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
  const setup = await Gateway.create(config);
  let token: string;
  try {
    token = await setup.registry.issueToken("bench");
    await setup.registry.recordRegistration("bench", {
      version: "2.3.0",
      versionsUrl: `http://${HOST}:1/versions`,
      endpoints: [],
      roles: [{ country_code: "BE", party_id: "BEC", role: "CPO", business_details: { name: "Bench CPO" } }],
      tokenToPartner: "unused",
    });
  } finally {
    await setup.close();
  }
  const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}`, "Content-Type": "application/json" };
  const url = `http://${HOST}:${port}/ocpi/2.3.0/receiver/cdrs`;
  const body = JSON.stringify({ ...benchCdr(0), id: "POSTED-1" });
  const run = async (name: string): Promise<LatencyRow> => {
    const gateway = spawnOnServerCore([CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
    try {
      await waitForOutput(gateway, "listening on");
      const before = await auditedSoFar(port);
      const result = await autocannon({ url, method: "POST", body, headers, connections: 50, duration: seconds });
      const audited = (await auditedSoFar(port)) - before;
      return { name, requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, audited };
    } finally {
      await stop(gateway);
    }
  };
  try {
    const idle = await run("POST /cdrs, audit worker idle");
    const filling = await Gateway.create(config);
    try {
      const { audits } = filling.container.resolve(CdrAuditing);
      for (let i = 0; i < queued; i += 1000)
        await filling.store.batch(() => Promise.all(Array.from({ length: Math.min(1000, queued - i) }, (_, j) => audits.enqueue(queuedBenchCdr(i + j)))));
    } finally {
      await filling.close();
    }
    const busy = await run(`POST /cdrs, audit worker draining ${queued.toLocaleString("en")} queued CDRs`);
    return [idle, busy];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const benchAudit = async (seconds: number, stores: ("SQLite" | "Redis")[], count = Number(process.env.BENCH_AUDIT_CDRS ?? 100_000)): Promise<AuditBenchResult> => {
  const drains: DrainRow[] = [];
  for (const kind of stores) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-audit-drain-"));
    const redis = kind === "Redis" ? await startBenchRedis() : undefined;
    try {
      drains.push(await drainOn(redis ? { type: "redis", url: redis.url, key_prefix: "audit:", command_timeout_ms: 30_000 } : { type: "sqlite", path: path.join(dir, "drain.db") }, count));
    } finally {
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { drains, latency: await latencyRows(seconds, count), loadAverage: os.loadavg() };
};

export const auditTable = (result: AuditBenchResult): { title: string; lines: string[] } => ({
  title: "CDR audit: 100,000 stored CDRs audited, and a partner's POST while the worker audits",
  lines: [
    "The audit worker of one gateway process, pinned to one core, audits CDRs queued in its store without resting (bench/audit-cdrs.ts: two tariff shapes, one in ten priced wrong, one in twenty a credit CDR): re-priced with the tariff engine, explained, and written with its indexes. " +
      "`CDRs/s` is by the wall clock; `CDRs per CPU-second` by the process's own CPU time (on SQLite the store's work is in it; Redis's is in the redis-server process). " +
      `Load average of the machine when the run ended: ${result.loadAverage.map((l) => l.toFixed(1)).join(", ")} (other work shares its cores; the figures are what was measured beside it). Target: 20,000 CDRs/s on one core.`,
    "",
    "| store | CDRs | seconds | CDRs/s | CPU seconds | CDRs per CPU-second | match | mismatch | unpriceable |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...result.drains.map(
      (d) =>
        `| ${d.store} | ${d.count} | ${d.seconds.toFixed(1)} | ${Math.round(d.count / d.seconds)} | ${d.cpuSeconds.toFixed(1)} | ${Math.round(d.count / d.cpuSeconds)} | ${d.verdicts.match} | ${d.verdicts.mismatch} | ${d.verdicts.unpriceable} |`,
    ),
    "",
    "A partner POSTing a CDR (50 connections, the same CDR again: the receiver stores it once and answers the retries) to a gateway process on SQLite, first with its audit worker idle, then right after a start with the CDRs above queued, which its worker audits in the same process meanwhile (200 CDRs a batch; after every 25 and after each batch is written it rests as long as it worked, taking half the process's time).",
    "",
    "| run | requests/s | p50 ms | p99 ms | non-2xx | CDRs audited during the run |",
    "|---|---:|---:|---:|---:|---:|",
    ...result.latency.map((r) => `| ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.audited} |`),
  ],
});
