import "reflect-metadata";
import type { ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import type { GatewayConfig, StoreConfig } from "../config/types";
import { openStore } from "../core/store/open-store";
import type { Store } from "../core/contract/store";
import { OwnedCollection } from "../adapters/local/owned-collection";
import { TokenOwnedCollection } from "../adapters/local/token-owned-collection";
import type { Cdr, Location, PartyRef, Session } from "../adapters/kit";
import { benchLocation, registerBenchPartner } from "./bench-gateway";
import { benchCdr, benchSession } from "./bench-objects";
import { startBenchRedis } from "./bench-redis";
import { measured, type MeasuredRun } from "./locations-bench";
import { HOST, freePort, load, spawnOnServerCore, stop, waitForOutput, type RatioBar } from "./support";

const CLI = path.resolve(__dirname, "../app/cli.js");
const RAW_SERVER = path.resolve(__dirname, "raw-server.js");
const SIZES = [1_000, 100_000];
const LIMIT = 50;
export const KINDS = ["Locations", "Sessions", "CDRs"] as const;
export type Kind = (typeof KINDS)[number];
export type StoreKind = "SQLite" | "Redis";
/** Issue #26's targets: an uncached first page ≥ this × raw node:http sending the same bytes. */
export const UNCACHED_TARGETS: Record<StoreKind, number> = { SQLite: 0.35, Redis: 0.3 };

export interface UncachedRow extends MeasuredRun {
  store: StoreKind;
  kind: Kind;
  /** undefined: the raw node:http baseline of its kind */
  size?: number;
  offset: number;
}

const OURS: PartyRef = { country_code: "NL", party_id: "GWY" };
/**
 * Seconds of unrecorded load before a gateway's first row (one before every other row): on Redis a gateway's
 * first seconds under load cost up to twice the CPU per page of the later ones (bench/RESULTS.md, issue #26, target 1).
 */
const FIRST_WARM_UP_SECONDS = 5;
/** Objects of each kind written per transaction by `seed`. */
const SEED_BATCH = 100;
const TTL_0 = { locations: 0, sessions: 0, cdrs: 0 };

/** A CPO gateway on `store` serving what is in it (no seed), none of the three lists cached, for one bench partner (DE/EMS). */
export const gatewayConfig = (port: number, store: StoreConfig): GatewayConfig => ({
  server: { port, host: HOST, public_url: `http://${HOST}:${port}`, max_page_limit: 100, token_grace_seconds: 0, request_timeout_ms: 5000, log_level: "warn" },
  parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Bench CPO" } }],
  store,
  modules: { locations: { adapter: "local" }, sessions: { adapter: "local" }, cdrs: { adapter: "local" } },
  adapters: { local: {} },
  cache: { ttl_seconds: TTL_0, max_entries: 1000, redis: false },
  partners: [{ id: "bench", versions: ["2.3.0"], token_encoding: "auto", header_prefix: "OCPI", strictness: "reject", callback_hosts: [] }],
});

/**
 * Writes objects [from, to) of each kind the way the local adapter keeps them (Locations: all, and the
 * published index; Sessions and CDRs: per owner, and the index of their token's owner, the bench partner's
 * DE/EMS), SEED_BATCH at a time: one short transaction each, as the gateway's own writes (its background
 * leases) wait for the file at most its busy timeout (1 s), and a write that fails marks the store down.
 */
export const seed = async (store: Store, from: number, to: number): Promise<void> => {
  const locations = new OwnedCollection<Location>(store, "locations");
  const published = new OwnedCollection<Location>(store, "locations.published");
  const sessions = new TokenOwnedCollection<Session>(store, "sessions", [OURS]);
  const cdrs = new TokenOwnedCollection<Cdr>(store, "cdrs", [OURS]);
  for (let start = from; start < to; start += SEED_BATCH) {
    await store.batch(() =>
      Promise.all(
        Array.from({ length: Math.min(SEED_BATCH, to - start) }, async (_, n) => {
          const i = start + n;
          const location = benchLocation(i) as unknown as Location;
          const session = benchSession(i);
          const cdr = benchCdr(i);
          await Promise.all([
            locations.put(OURS, location.id, location),
            published.put(OURS, location.id, location),
            sessions.put(OURS, session.id, session),
            cdrs.insert(OURS, cdr.id, cdr),
          ]);
        }),
      ),
    );
  }
};

/** The list URL of `kind` (Sessions need date_from: the start of the data, so every session counts). */
export const urlOf = (port: number, kind: Kind, offset: number): string => {
  const base = `http://${HOST}:${port}/ocpi/2.3.0/sender/${kind.toLowerCase()}?offset=${offset}&limit=${LIMIT}`;
  return kind === "Sessions" ? `${base}&date_from=2026-01-01T00:00:00Z` : base;
};

/**
 * Uncached first pages (cache TTL 0: every request reads the store through the local adapter) of
 * Locations, Sessions and CDRs (those two of the bench partner's own eMSP: a partner of one party reads
 * its index) at 1,000 and 100,000 objects, and the Locations page at offset N−50, on SQLite and on Redis,
 * each against a raw node:http server answering the bytes and headers the gateway answered for that
 * list, measured just before it in the same run (issue #26: ≥ 0.35 × raw on SQLite, ≥ 0.30 × on Redis).
 * One gateway process per store; the collections grow between sizes.
 */
export const benchUncached = async (seconds: number, stores: StoreKind[] = ["SQLite", "Redis"]): Promise<UncachedRow[]> => {
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
    const raws = new Map<Kind, { child: ChildProcess; url: string }>();
    try {
      await waitForOutput(gateway, "listening on");
      const headers = { Authorization: `Token ${Buffer.from(token).toString("base64")}` };
      let seeded = 0;
      let warmUp = FIRST_WARM_UP_SECONDS;
      for (const size of SIZES) {
        await seed(store, seeded, size);
        seeded = size;
        for (const list of KINDS) {
          if (!raws.has(list)) raws.set(list, await rawBaseline(dir, list, urlOf(port, list, 0), headers));
          const raw = raws.get(list)!;
          // a second unrecorded first: connections opened and both sides' code warm, as for every later row
          await load("warm-up", raw.url, headers, 1);
          rows.push({ ...(await measured(raw.child, `${kind}, raw node:http, the ${list} page's bytes (baseline)`, raw.url, headers, seconds)), store: kind, kind: list, offset: 0 });
          for (const offset of list === "Locations" ? [0, size - LIMIT] : [0]) {
            const url = urlOf(port, list, offset);
            await check(url, headers, size);
            const label = `${kind}, ${size.toLocaleString("en-US")} ${list}, ${offset === 0 ? "first page" : `offset N−${LIMIT}`}`;
            await load("warm-up", url, headers, warmUp);
            warmUp = 1;
            rows.push({ ...(await measured(gateway, label, url, headers, seconds)), store: kind, kind: list, size, offset });
          }
        }
      }
    } finally {
      for (const raw of raws.values()) await stop(raw.child);
      await stop(gateway);
      await store.close();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
};

/** The gateway answers `url` with a full page of `size` objects in all (X-Total-Count), or the bench stops. */
const check = async (url: string, headers: Record<string, string>, size: number): Promise<void> => {
  const sample = await fetch(url, { headers });
  const body = (await sample.json()) as { data?: unknown[] };
  if (sample.status !== 200 || body.data?.length !== LIMIT || sample.headers.get("x-total-count") !== String(size))
    throw new Error(`gateway answered ${sample.status} with ${body.data?.length} objects of ${sample.headers.get("x-total-count")} for ${url}`);
};

/** A raw node:http server (bench/raw-server.ts) answering the bytes and headers the gateway answers for `url`, captured once. */
export const rawBaseline = async (dir: string, kind: Kind, url: string, headers: Record<string, string>): Promise<{ child: ChildProcess; url: string }> => {
  const sample = await fetch(url, { headers });
  const body = Buffer.from(await sample.arrayBuffer());
  if (sample.status !== 200) throw new Error(`gateway answered ${sample.status}: ${body.toString()}`);
  const kept = Object.fromEntries([...sample.headers].filter(([k]) => !["content-length", "date", "connection", "keep-alive"].includes(k)));
  const [bodyFile, headersFile] = [path.join(dir, `${kind}.body`), path.join(dir, `${kind}.headers.json`)];
  writeFileSync(bodyFile, body);
  writeFileSync(headersFile, JSON.stringify(kept));
  const rawPort = await freePort();
  const child = spawnOnServerCore([RAW_SERVER, String(rawPort), bodyFile, headersFile]);
  await waitForOutput(child, "listening on");
  return { child, url: `http://${HOST}:${rawPort}/` };
};

/** The raw baseline a row is held against: the last one of its store and list measured before it. */
const baselineOf = (rows: UncachedRow[], at: number): UncachedRow =>
  rows.slice(0, at + 1).reverse().find((r) => r.store === rows[at].store && r.kind === rows[at].kind && r.size === undefined)!;

/** The bars of bench/ratios.svg: each first page against its raw baseline, with the store's target. */
export const uncachedRatios = (rows: UncachedRow[]): RatioBar[] =>
  rows.flatMap((r, at) =>
    r.size === undefined || r.offset !== 0
      ? []
      : [{ label: `uncached ${r.kind}, ${r.size.toLocaleString("en-US")} (${r.store}) / raw`, ratio: r.requestsPerSecond / baselineOf(rows, at).requestsPerSecond, target: UNCACHED_TARGETS[r.store] }],
  );

export const UNCACHED_TITLE = "Uncached GET of a Locations, Sessions and CDRs page (cache TTL 0) at 1,000 and 100,000 objects vs raw node:http sending the same bytes";

export const uncachedTable = (rows: UncachedRow[]): { title: string; lines: string[] } => ({
  title: UNCACHED_TITLE,
  lines: [
    "Every request reads the store through the local adapter (count and page; Sessions and CDRs: the index of the bench partner's one eMSP, Sessions with date_from at the start of the data). " +
      "One gateway process per store, the collections grown between sizes, one unrecorded second of load before each row (five before a store's first). `× raw` compares requests/s with the raw node:http row of the same list just above it, " +
      "answering the bytes and headers the gateway answered (captured once); CPU µs/req is the server's CPU time (user + system, /proc) over the requests it answered, `CPU × raw` the raw row's over this row's " +
      "(what `× raw` would be if every server had its core to itself). Targets (issue #26): first page ≥ 0.35 × raw on SQLite, ≥ 0.30 × on Redis.",
    "",
    "| target | requests/s | p50 ms | p99 ms | × raw | CPU µs/req | CPU × raw | non-2xx | errors |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r, at) => {
      const raw = baselineOf(rows, at);
      const cpu = r.cpuMicros === undefined ? "—" : r.cpuMicros.toFixed(1);
      const cpuRatio = r.cpuMicros && raw.cpuMicros ? (raw.cpuMicros / r.cpuMicros).toFixed(2) : "—";
      return `| ${r.name} | ${Math.round(r.requestsPerSecond)} | ${r.p50} | ${r.p99} | ${(r.requestsPerSecond / raw.requestsPerSecond).toFixed(2)} | ${cpu} | ${cpuRatio} | ${r.non2xx} | ${r.errors} |`;
    }),
  ],
});
