import "reflect-metadata";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import pino from "pino";
import type { GatewayConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { applyHeapGrowth } from "../app/heap-growth";
import { ChangeFeed, type DataChange } from "../core/contract/change-feed";
import { Outbox } from "../core/outbox/outbox";
import { startBenchRedis } from "./bench-redis";
import { HOST, spawnOnServerCore, stop } from "./support";

const RECEIVERS = path.resolve(__dirname, "push-receivers.js");
const PARTNERS = 10;
const CHANGES = 10_000;
/** the baseline's rate settles long before 10,000 changes: a fifth of them keeps `npm run bench` shorter */
const BASELINE_CHANGES = 2_000;
/** the run is aborted past this, so `npm run bench` stays bounded */
const TIMEOUT_MS = 600_000;
/**
 * Rounds of the scenario (the baseline, then each store), the median round's figures shown: one run's rate
 * moved by 5-10 % between runs of the same code on this shared machine (`PUSH_RUNS`, default 3).
 */
const RUNS = Math.max(1, Number(process.env.PUSH_RUNS ?? 3));

export interface PushResult {
  name: string;
  deliveries: number;
  ms: number;
  /** time until every change was queued (the gateway only) */
  enqueueMs?: number;
  /** CPU time of this process (the gateway: queueing and delivering) per delivery, µs (the gateway only) */
  cpuPerDelivery?: number;
  /** deliveries/s of every round, in the order they ran (the row's other figures are the median round's) */
  rounds?: number[];
}

const rate = (r: PushResult): number => (r.deliveries / r.ms) * 1000;

/** The median round (by deliveries/s), with every round's rate. */
const median = (runs: PushResult[]): PushResult => {
  const sorted = [...runs].sort((a, b) => rate(a) - rate(b));
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], rounds: runs.map(rate) };
};

/** 10,000 status changes of distinct EVSEs (nothing collapses), as an adapter reports them. */
const change = (i: number): DataChange => ({
  module: "locations",
  owner: { country_code: "NL", party_id: "GWY" },
  path: [`LOC${Math.floor(i / 10)}`, `EVSE${i}`],
  kind: "patch",
  object: { status: i % 2 ? "CHARGING" : "AVAILABLE", last_updated: new Date(Date.UTC(2026, 0, 1) + i).toISOString() },
});

/** Starts the receivers on the server core; resolves with their ports. */
const startReceivers = (): Promise<{ child: ChildProcess; ports: number[] }> =>
  new Promise((resolve, reject) => {
    const child = spawnOnServerCore([RECEIVERS, String(PARTNERS)]);
    let out = "";
    const timer = setTimeout(() => reject(new Error(`receivers did not start: ${out}`)), 20_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\[[\d,]+\])/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      resolve({ child, ports: JSON.parse(match[1]) as number[] });
    });
    child.once("exit", (code) => reject(new Error(`receivers exited with ${code}: ${out}`)));
  });

const receiverUrl = (port: number) => `http://${HOST}:${port}/ocpi/2.3.0/receiver/locations`;

/**
 * The baseline: the same PATCHes (of the first 2,000 changes) sent straight
 * with fetch, one lane per partner in order, as the outbox worker delivers
 * them, but without queueing anything durably.
 */
const direct = async (ports: number[]): Promise<PushResult> => {
  const started = Date.now();
  await Promise.all(
    ports.map(async (port) => {
      for (let i = 0; i < BASELINE_CHANGES; i++) {
        const c = change(i);
        const response = await fetch(`${receiverUrl(port)}/NL/GWY/${c.path.join("/")}`, {
          method: "PATCH",
          headers: { Authorization: "Token YmVuY2g=", "Content-Type": "application/json" },
          body: JSON.stringify(c.object),
        });
        await response.arrayBuffer();
      }
    }),
  );
  return { name: "fetch in order per partner, nothing queued (baseline)", deliveries: BASELINE_CHANGES * ports.length, ms: Date.now() - started };
};

/**
 * Push fan-out: a gateway (SQLite store, in this process on the load core)
 * with 10 registered 2.3.0 partners takes 10,000 EVSE status changes from
 * its ChangeFeed; each becomes one outbox message per partner, delivered by
 * the outbox worker to cheap receivers in a child process on the server
 * core. Timed from the first change to the last delivery.
 */
const throughGateway = async (ports: number[], redisUrl?: string): Promise<PushResult> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-push-bench-"));
  const partners = ports.map((_, i) => `partner-${i + 1}`);
  const config: GatewayConfig = {
    server: { port: 0, host: HOST, public_url: `http://${HOST}:1`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
    parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench CPO" } }],
    store: redisUrl ? { type: "redis", url: redisUrl, key_prefix: `push-bench-${Date.now()}:` } : { type: "sqlite", path: path.join(dir, "gateway.db") },
    modules: { locations: { adapter: "local" } },
    adapters: { local: {} },
    // the receivers are on loopback: naming their origins in config is what allows them (README "Outbound URL policy")
    partners: partners.map((id, i) => ({
      id,
      versions_url: `http://${HOST}:${ports[i]}/ocpi/versions`,
      versions: ["2.3.0"],
      token_encoding: "auto",
      header_prefix: "OCPI",
      strictness: "reject",
      callback_hosts: [],
    })),
  };
  const gateway = await Gateway.create(config, { logger: pino({ level: "warn" }) });
  try {
    // Registered the way a credentials exchange would leave them.
    for (const [i, id] of partners.entries())
      await gateway.registry.recordRegistration(id, {
        version: "2.3.0",
        versionsUrl: `http://${HOST}:${ports[i]}/ocpi/versions`,
        endpoints: [{ identifier: "locations", role: "RECEIVER", url: receiverUrl(ports[i]) }],
        roles: [{ country_code: "DE", party_id: `E${String(i).padStart(2, "0")}`, role: "EMSP", business_details: { name: id } }],
        tokenToPartner: "bench",
      });
    await gateway.listen();
    const feed = gateway.container.resolve(ChangeFeed);
    const outbox = gateway.container.resolve(Outbox);
    const started = Date.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < CHANGES; i++) await feed.publish(change(i));
    const enqueueMs = Date.now() - started;
    let delivered = 0;
    while (delivered < CHANGES * partners.length) {
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`push bench: ${delivered} deliveries after ${TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const left = await Promise.all(partners.map(async (id) => (await outbox.pending(id, 1)).total));
      delivered = CHANGES * partners.length - left.reduce((a, b) => a + b, 0);
    }
    const ms = Date.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    const counted = (await Promise.all(partners.map((id) => outbox.counts(id)))).reduce((sum, c) => sum + c.delivered, 0);
    if (counted !== delivered) throw new Error(`push bench: ${counted} deliveries counted, ${delivered} expected`);
    return {
      name: `gateway: ChangeFeed → outbox (${redisUrl ? "Redis" : "SQLite"}) → worker`,
      deliveries: delivered,
      ms,
      enqueueMs,
      cpuPerDelivery: (user + system) / delivered,
    };
  } finally {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export const benchPushFanOut = async (stores: ("SQLite" | "Redis")[] = ["SQLite", "Redis"]): Promise<PushResult[]> => {
  const { child, ports } = await startReceivers();
  const redis = stores.includes("Redis") ? await startBenchRedis() : undefined;
  // the gateway runs in this process as in the CLI's, whose V8 heap growth is set from the config (default): the
  // baseline shares the process and runs so too; V8's own choice again once done, for the scenarios after this one
  applyHeapGrowth({});
  try {
    // round after round, each of the baseline and the stores once, so a slower spell of the machine falls on all of them
    const targets: PushResult[][] = [[], ...stores.map(() => [])];
    for (let round = 0; round < RUNS; round++) {
      targets[0].push(await direct(ports));
      for (const [i, store] of stores.entries()) targets[i + 1].push(await throughGateway(ports, store === "Redis" ? redis!.url : undefined));
    }
    return targets.map(median);
  } finally {
    v8.setFlagsFromString("--heap-growing-percent=0");
    await stop(child);
    await redis?.stop();
  }
};

export const pushTable = (rows: PushResult[]): { title: string; lines: string[] } => ({
  title: `Push fan-out of ${CHANGES.toLocaleString("en-US")} EVSE status changes to ${PARTNERS} partners vs sending the same PATCHes directly`,
  lines: [
    `Distinct EVSEs, so nothing collapses: every change is one PATCH per partner, sent by undici as core/client/ocpi-client.ts does (the baseline: fetch), in order per partner. The receivers (one child process on the server core) answer at once; the gateway's time runs from the first change to the last delivery and includes queueing every message durably in the store (SQLite, or Redis), the fan-out (partner lookup, translation), the in-flight claim and the removal after delivery. The baseline sends the PATCHes of the first ${BASELINE_CHANGES.toLocaleString("en-US")} changes. The ratio compares deliveries/s. Each row is the median of ${RUNS} rounds (baseline, SQLite, Redis, then again), every round's rate listed. CPU: this process's (the gateway's and the bench loop's, which only polls the queue lengths every 50 ms) user and system time from the first change to the last delivery, per delivery; Redis' own CPU is not in it. The process sets V8's heap growth as the CLI does (\`server.heap_growth_percent\`, default 100; app/heap-growth.ts).`,
    "",
    "| target | deliveries | seconds | deliveries/s | ratio to baseline | changes queued/s | gateway CPU µs/delivery | every round, deliveries/s |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
    ...rows.map((r) => {
      const queued = r.enqueueMs === undefined ? "—" : Math.round((CHANGES / r.enqueueMs) * 1000);
      const cpu = r.cpuPerDelivery === undefined ? "—" : Math.round(r.cpuPerDelivery);
      const rounds = (r.rounds ?? [rate(r)]).map((n) => Math.round(n).toLocaleString("en-US")).join(", ");
      return `| ${r.name} | ${r.deliveries} | ${(r.ms / 1000).toFixed(1)} | ${Math.round(rate(r))} | ${(rate(r) / rate(rows[0])).toFixed(2)} | ${queued} | ${cpu} | ${rounds} |`;
    }),
  ],
});
