import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { stringify } from "yaml";
import { parseConfig } from "../../config/load-config";
import type { GatewayConfig, PartnerConfig, Role, ServerConfig } from "../../config/types";

/** One of our own parties; `name` defaults to "<party_id> test platform". */
export interface PartySpec {
  country_code: string;
  party_id: string;
  role: Role;
  name?: string;
}

/** SQLite: a file (default: `gateway.db` in a fresh temp dir). Redis: the run's server (REDIS_URL) with a unique key prefix. */
export type StoreSpec = { type: "sqlite"; path?: string } | { type: "redis"; url?: string; key_prefix?: string; generation_lease_ms?: number };

/** A partner entry as written in the YAML; everything but the id has the config's defaults. */
export type PartnerSpec = { id: string } & Partial<Omit<PartnerConfig, "id">>;

export interface GatewayConfigOptions {
  /** the port the gateway listens on; public_url is http://127.0.0.1:<port> */
  port: number;
  party?: PartySpec | PartySpec[];
  store?: StoreSpec;
  partners?: PartnerSpec[];
  modules?: Record<string, unknown>;
  adapters?: Record<string, unknown>;
  /** overrides of the `server` section (port, host and public_url are derived from `port` unless given) */
  server?: Partial<ServerConfig>;
}

export const DEFAULT_PARTY: PartySpec = { country_code: "NL", party_id: "GWY", role: "CPO" };

const tempDirs: string[] = [];

/** A fresh directory under the OS temp dir; removed by removeTempDirs(). */
export const tempDir = (prefix = "ocpi-test-"): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
};

/** Removes every directory made by tempDir() in this test file. Call it in afterAll, after the gateways are closed. */
export const removeTempDirs = (): void => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
};

export const sqliteStore = (file?: string): StoreSpec => ({ type: "sqlite", path: file ?? path.join(tempDir(), "gateway.db") });

/** The Redis store's command timeout in tests (the default, 1000 ms, was passed once at world start under two full runs at once). */
const TEST_REDIS_COMMAND_TIMEOUT_MS = 5_000;

export const redisStore = (): StoreSpec => ({ type: "redis", key_prefix: `test:${randomUUID()}:` });

const resolveStore = (store: StoreSpec | undefined): Record<string, unknown> => {
  const spec = store ?? sqliteStore();
  if (spec.type === "sqlite") return { type: "sqlite", path: spec.path ?? path.join(tempDir(), "gateway.db") };
  const url = spec.url ?? process.env.REDIS_URL;
  if (!url) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server and sets it");
  const lease = spec.generation_lease_ms !== undefined ? { generation_lease_ms: spec.generation_lease_ms } : {};
  // tests run beside other work: a command the loaded redis-server answers after the default 1 s is not an outage here
  return { type: "redis", url, key_prefix: spec.key_prefix ?? `test:${randomUUID()}:`, command_timeout_ms: TEST_REDIS_COMMAND_TIMEOUT_MS, ...lease };
};

/** The config as plain data, ready to be written as YAML. The store is resolved (temp file, unique Redis prefix) here. */
export const gatewayConfigData = (options: GatewayConfigOptions): Record<string, unknown> => {
  const parties = [options.party ?? DEFAULT_PARTY].flat().map((p) => ({
    country_code: p.country_code,
    party_id: p.party_id,
    role: p.role,
    business_details: { name: p.name ?? `${p.party_id} test platform` },
  }));
  return {
    server: {
      port: options.port,
      host: "127.0.0.1",
      public_url: `http://127.0.0.1:${options.port}`,
      log_level: "warn",
      request_timeout_ms: 5000,
      ...options.server,
    },
    parties,
    store: resolveStore(options.store),
    modules: options.modules ?? {},
    adapters: options.adapters ?? { local: {} },
    partners: options.partners ?? [],
  };
};

export const gatewayConfigYaml = (options: GatewayConfigOptions): string => stringify(gatewayConfigData(options));

/** A validated GatewayConfig, built the way the product builds it: parseConfig of the YAML (no environment interpolation). */
export const testGatewayConfig = (options: GatewayConfigOptions): GatewayConfig =>
  parseConfig(gatewayConfigYaml(options), {}, "<test config>");

/** The versions URL a gateway built from these options advertises. */
export const versionsUrlOf = (port: number): string => `http://127.0.0.1:${port}/ocpi/versions`;
