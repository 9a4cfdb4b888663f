import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import type { GatewayConfig } from "../config/types";
import { Gateway } from "../app/gateway";
import { SyncPuller } from "../core/sync/sync-puller";
import { applyHeapGrowth } from "../app/heap-growth";

/**
 * One measured pull of a mock partner's Location list, in a process of its
 * own so its peak RSS is the pull's alone. Prints one JSON line:
 * `{ objects, pages, ms, cpuMs, peakRssMb }`. Arguments: mode, list URL, Redis URL or '' (SQLite), and for the
 * gateway optionally its `server.heap_growth_percent` (default: the config's default).
 * - `baseline`: fetch and JSON.parse every page, following Link headers, and count the objects;
 * - `gateway`: the gateway's sync pull (validation, translation, upsert into the `local` adapter on SQLite,
 *   or on the Redis at the third argument).
 */
const [mode, listUrl, redisUrl, heapGrowth] = process.argv.slice(2);

interface Measured {
  objects: number;
  pages: number;
  /** time of the pull itself, without process and gateway start-up */
  ms: number;
  /** CPU time (user + system) of this process during the pull: on a shared machine, steadier than `ms` */
  cpuMs: number;
  /** size of the list's JSON bodies (baseline only) */
  bytes?: number;
}

/** CPU milliseconds of this process since `since` (a process.cpuUsage()). */
const cpuMsSince = (since: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

const rawPull = async (): Promise<Measured> => {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let next: string | undefined = listUrl;
  let objects = 0;
  let pages = 0;
  let bytes = 0;
  while (next) {
    const response = await fetch(next, { headers: { Authorization: "Token YmVuY2g=" } });
    const text = await response.text();
    bytes += Buffer.byteLength(text);
    const body = JSON.parse(text) as { data: unknown[] };
    objects += body.data.length;
    pages++;
    next = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(response.headers.get("link") ?? "")?.[1];
  }
  return { objects, pages, ms: performance.now() - started, cpuMs: cpuMsSince(cpu), bytes };
};

const gatewayPull = async (): Promise<Measured> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-pull-bench-"));
  const config: GatewayConfig = {
    server: {
      port: 0,
      host: "127.0.0.1",
      public_url: "http://127.0.0.1:1",
      max_page_limit: 100,
      token_grace_seconds: 0,
      request_timeout_ms: 30_000,
      log_level: "warn",
      ...(heapGrowth ? { heap_growth_percent: Number(heapGrowth) } : {}),
    },
    parties: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "Bench eMSP" } }],
    store: redisUrl ? { type: "redis", url: redisUrl, key_prefix: `pull-bench-${process.pid}:` } : { type: "sqlite", path: path.join(dir, "gateway.db") },
    modules: { locations: { adapter: "local" } },
    adapters: { local: {} },
    // the mock is on loopback: naming its origin in config is what allows it (README "Outbound URL policy")
    partners: [
      { id: "mock", versions_url: new URL("/ocpi/versions", listUrl).toString(), versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] },
    ],
  };
  // this process stands for the CLI's (`ocpi-gateway sync`, `start`), which sets the heap's growth once it has read the config
  applyHeapGrowth(config.server);
  const gateway = await Gateway.create(config);
  try {
    // The partner registered the way a credentials exchange leaves it; the mock serves only its list.
    await gateway.registry.recordRegistration("mock", {
      version: "2.3.0",
      versionsUrl: new URL("/ocpi/versions", listUrl).toString(),
      endpoints: [{ identifier: "locations", role: "SENDER", url: listUrl }],
      roles: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Mock CPO" } }],
      tokenToPartner: "bench",
    });
    const cpu = process.cpuUsage();
    const result = await gateway.container.resolve(SyncPuller).pull("mock", "locations", { full: true, trigger: "on demand" });
    return { objects: result.objects, pages: result.pages, ms: result.duration_ms, cpuMs: cpuMsSince(cpu) };
  } finally {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

const main = async () => {
  if (mode !== "baseline" && mode !== "gateway") throw new Error(`mode must be baseline or gateway, not ${mode}`);
  const measured = mode === "gateway" ? await gatewayPull() : await rawPull();
  process.stdout.write(JSON.stringify({ ...measured, peakRssMb: process.resourceUsage().maxRSS / 1024 }) + "\n");
};

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
