import "reflect-metadata";
import type { GatewayConfig, StoreConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { CdrAuditing } from "../plugins/cdrs/audit/cdr-auditing";
import path from "node:path";
import { queuedBenchCdr } from "./audit-cdrs";
import { profiled, sharesOf } from "./audit-profile";

/**
 * One drain of the audit bench, in a process of its own (on the server core): queues `count` CDRs in the
 * store, then times the audit worker auditing them all. Prints one JSON line: count, seconds (wall clock),
 * cpuSeconds (this process's CPU time: the audit and, on SQLite, the store), verdicts; with BENCH_AUDIT_PROFILE=<dir>,
 * the drain's CPU profile is written there and `where` gives each part's share of its samples (audit-profile.ts).
 * `node audit-drain.js <store JSON> <count>`.
 */
const main = async (): Promise<void> => {
  const store = JSON.parse(process.argv[2]) as StoreConfig;
  const count = Number(process.argv[3]);
  const config: GatewayConfig = {
    server: { port: 0, host: "127.0.0.1", public_url: "http://127.0.0.1:1", max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
    parties: [{ country_code: "DE", party_id: "TNM", role: "EMSP", business_details: { name: "Bench eMSP" } }],
    store,
    modules: { cdrs: { adapter: "local" }, tariffs: { adapter: "local" }, sessions: { adapter: "local" }, locations: { adapter: "local" } },
    adapters: { local: {} },
    partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
  };
  const gateway = await Gateway.create(config);
  try {
    const { audits, worker } = gateway.container.resolve(CdrAuditing);
    for (let i = 0; i < count; i += 200)
      await gateway.store.batch(() => Promise.all(Array.from({ length: Math.min(200, count - i) }, (_, j) => audits.enqueue(queuedBenchCdr(i + j)))));
    const dir = process.env.BENCH_AUDIT_PROFILE;
    const profile = dir && path.resolve(dir, `audit-drain-${store.type}-${process.pid}.cpuprofile`);
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    // the audit alone, without resting (the gateway's worker takes half the process's time while partners are served)
    const audited = await (profile ? profiled(profile, () => worker.drain(1)) : worker.drain(1));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    const verdicts: Record<string, number> = {};
    for (const verdict of ["match", "mismatch", "unpriceable"] as const) verdicts[verdict] = (await audits.list({ verdict, offset: 0, limit: 1 })).total;
    process.stdout.write(`${JSON.stringify({ count: audited, seconds, cpuSeconds, verdicts, ...(profile ? { where: sharesOf(profile) } : {}) })}\n`);
  } finally {
    await gateway.close();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  },
);
