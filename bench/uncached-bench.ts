import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { GatewayConfig, StoreConfig } from "../config/types";
import { openStore } from "../core/store/open-store";
import type { Store } from "../core/contract/store";
import { OwnedCollection } from "../adapters/local/owned-collection";
import type { Location } from "../adapters/kit";
import { benchLocation, registerBenchPartner } from "./bench-gateway";
import { startBenchRedis } from "./bench-redis";
import { HOST, freePort, load, spawnOnServerCore, stop, waitForOutput, type LoadResult } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");
const SIZES = [1_000, 10_000, 100_000];
const LIMIT = 50;

export interface UncachedRow extends LoadResult {
  store: "SQLite" | "Redis";
  size: number;
  offset: number;
}

/** A CPO gateway on `store` serving the Locations already in it (no seed), Locations not cached, for one bench partner. */
const gatewayConfig = (port: number, store: StoreConfig): GatewayConfig => ({
  server: { port, host: HOST, public_url: `http://${HOST}:${port}`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
  parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench CPO" } }],
  store,
  modules: { locations: { adapter: "local" } },
  adapters: { local: {} },
  cache: { ttl_seconds: { locations: 0 }, max_entries: 1000, redis: false },
  partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
});

/** Writes Locations [from, to) the way the local adapter keeps them (all of them, and the published index), a few hundred at a time. */
const seed = async (store: Store, from: number, to: number): Promise<void> => {
  const all = new OwnedCollection<Location>(store, "locations");
  const published = new OwnedCollection<Location>(store, "locations.published");
  const owner = { country_code: "NL", party_id: "GWY" };
  const batchOf = (store as { batch?: <R>(work: () => Promise<R>) => Promise<R> }).batch?.bind(store) ?? (<R>(work: () => Promise<R>) => work());
  for (let start = from; start < to; start += 500) {
    await batchOf(() =>
      Promise.all(
        Array.from({ length: Math.min(500, to - start) }, async (_, i) => {
          const location = benchLocation(start + i) as unknown as Location;
          await all.put(owner, location.id, location);
          await published.put(owner, location.id, location);
        }),
      ),
    );
  }
};

/**
 * Uncached `GET /locations?limit=50` (cache TTL 0, so every request reads the
 * store through the local adapter) at 1,000, 10,000 and 100,000 Locations,
 * the first page and the page at offset N−50, on SQLite and on Redis: what a
 * page costs as the collection grows. One gateway process per store; the
 * collection grows between sizes. Baseline: the first page at 1,000 on the
 * same store, in the same run.
 */
export const benchUncached = async (seconds: number, stores: ("SQLite" | "Redis")[] = ["SQLite", "Redis"]): Promise<UncachedRow[]> => {
  const rows: UncachedRow[] = [];
  for (const kind of stores) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-uncached-"));
    const redis = kind === "Redis" ? await startBenchRedis() : undefined;
    const storeConfig: StoreConfig = redis
      ? { type: "redis", url: redis.url, key_prefix: "bench:" }
      : { type: "sqlite", path: path.join(dir, "gateway.db") };
    const port = await freePort();
    const config = gatewayConfig(port, storeConfig);
    writeFileSync(path.join(dir, "gateway.yaml"), stringify(config));
    const token = await registerBenchPartner(config);
    const store = await openStore(storeConfig);
    // BENCH_CPU_PROF=<dir>: the gateway writes a CPU profile there when it stops
    const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_CPU_PROF] : [];
    const gateway = spawnOnServerCore([...profile, CLI, "start", "--config", path.join(dir, "gateway.yaml")]);
    try {
      await waitForOutput(gateway, "listening on");
      const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
      let seeded = 0;
      for (const size of SIZES) {
        await seed(store, seeded, size);
        seeded = size;
        for (const offset of [0, size - LIMIT]) {
          const url = `http://${HOST}:${port}/ocpi/2.3.0/sender/locations?offset=${offset}&limit=${LIMIT}`;
          const sample = await fetch(url, { headers });
          const body = (await sample.json()) as { data?: unknown[] };
          if (sample.status !== 200 || body.data?.length !== LIMIT || sample.headers.get("x-total-count") !== String(size))
            throw new Error(`gateway answered ${sample.status} with ${body.data?.length} Locations of ${sample.headers.get("x-total-count")} for ${url}`);
          const label = `${kind}, ${size.toLocaleString("en-US")} Locations, ${offset === 0 ? "first page" : `offset N−${LIMIT}`}`;
          // a second unrecorded first, before the store's first row (the baseline of the others): connections
          // opened and the gateway's code warm, as it is for every later row
          if (!rows.some((r) => r.store === kind)) await load("warm-up", url, headers, 1);
          rows.push({ ...(await load(label, url, headers, seconds)), store: kind, size, offset });
        }
      }
    } finally {
      await stop(gateway);
      await store.close();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
};

export const uncachedTable = (rows: UncachedRow[]): { title: string; lines: string[] } => ({
  title: "Uncached GET /locations?limit=50 (cache TTL 0) at 1,000 / 10,000 / 100,000 Locations, first page and offset N−50",
  lines: [
    "Every request reads the store through the local adapter (count and page). One gateway process per store, the collection grown between sizes, one unrecorded second of load before its first row. " +
      "`ratio to 1,000` compares requests/s with the first page at 1,000 Locations on the same store (target at 100,000: ≥ 0.80); " +
      "`last / first` is how much slower the page at offset N−50 is than the first page of the same size (target ≤ 1.5).",
    "",
    "| target | requests/s | p50 ms | p99 ms | ratio to 1,000 | last / first | non-2xx | errors |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => {
      const base = rows.find((b) => b.store === r.store && b.size === SIZES[0] && b.offset === 0)!;
      const first = rows.find((b) => b.store === r.store && b.size === r.size && b.offset === 0)!;
      const slower = r.offset === 0 ? "—" : (first.requestsPerSecond / r.requestsPerSecond).toFixed(2);
      return `| ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${(r.requestsPerSecond / base.requestsPerSecond).toFixed(2)} | ${slower} | ${r.non2xx} | ${r.errors} |`;
    }),
  ],
});
