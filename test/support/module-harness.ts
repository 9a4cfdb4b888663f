import "reflect-metadata";
import os from "node:os";
import path from "node:path";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import request from "supertest";
import pino from "pino";
import type { InjectionToken } from "tsyringe";
import type { CacheConfig, GatewayConfig, PartnerConfig, PartyConfig, Role, StoreConfig, Strictness, VersionNumber } from "../../config/types";
import type { CredentialsRole, InterfaceRole } from "../../core/protocol/types";
import type { ModulePlugin } from "../../core/contract/module-plugin";
import type { LocalModule } from "../../adapters/local/local-module";
import { Gateway } from "../../app/gateway";
import { CredentialsPlugin } from "../../plugins/credentials/module";
import { createLocalAdapterFactory } from "../../adapters/local/factory";

export interface HarnessOptions {
  plugins: InjectionToken<ModulePlugin>[];
  localModules: LocalModule[];
  modules: string[];
  /** our party; default NL/GWY as CPO */
  party?: Partial<PartyConfig>;
  /** the registered partner's roles; default one eMSP DE/EMS */
  partnerRoles?: CredentialsRole[];
  partnerVersion?: VersionNumber;
  strictness?: Strictness;
  maxPageLimit?: number;
  seed?: Record<string, unknown[]>;
  store?: StoreConfig;
  /** enables the admin API with this bearer token */
  adminToken?: string;
  /** further settings of the registered partner's YAML entry */
  partnerConfig?: Partial<PartnerConfig>;
  /** the response cache; default DEFAULT_CACHE_CONFIG */
  cache?: CacheConfig;
}

export interface Harness {
  gateway: Gateway;
  http: ReturnType<typeof request>;
  /** Authorization header value of the registered partner */
  auth: string;
  /** path of a module interface for a version, e.g. path("2.3.0", "RECEIVER", "locations", "/NL/ABC/1") */
  path(version: VersionNumber, role: InterfaceRole, module: string, rest?: string): string;
  logs: string[];
  close(): Promise<void>;
}

const party = (cc: string, pid: string, role: Role): CredentialsRole => ({
  country_code: cc,
  party_id: pid,
  role,
  business_details: { name: `${cc}${pid}` },
});

/**
 * An in-process gateway serving the given module plugins on the `local`
 * adapter, with one partner already registered (its token issued the way a
 * credentials exchange would), so module tests exercise the HTTP surface
 * without repeating the handshake (test/e2e covers that).
 */
export const startHarness = async (options: HarnessOptions): Promise<Harness> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocpi-module-"));
  let seedFile: string | undefined;
  if (options.seed) {
    seedFile = path.join(dir, "seed.json");
    writeFileSync(seedFile, JSON.stringify(options.seed));
  }
  const config: GatewayConfig = {
    server: {
      port: 0,
      host: "127.0.0.1",
      public_url: "http://127.0.0.1:9",
      max_page_limit: options.maxPageLimit ?? 100,
      token_grace_seconds: 0,
      request_timeout_ms: 2000,
      log_level: "info",
      admin_token: options.adminToken,
    },
    parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Gateway" }, ...options.party }],
    store: options.store ?? { type: "sqlite", path: path.join(dir, "gateway.db") },
    modules: Object.fromEntries(options.modules.map((m) => [m, { adapter: "local" }])),
    adapters: { local: seedFile ? { seed: seedFile } : {} },
    cache: options.cache,
    partners: [
      {
        id: "partner",
        versions: ["2.3.0", "2.2.1", "2.1.1"],
        token_encoding: "auto",
        header_prefix: "OCPI",
        strictness: options.strictness ?? "reject",
        callback_hosts: [],
        ...options.partnerConfig,
      },
    ],
  };
  const logs: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void logs.push(line) });
  const gateway = await Gateway.create(config, {
    logger,
    plugins: [CredentialsPlugin, ...options.plugins],
    adapters: [createLocalAdapterFactory(options.localModules)],
  });
  const token = await gateway.registry.issueToken("partner");
  await gateway.registry.recordRegistration("partner", {
    version: options.partnerVersion ?? "2.3.0",
    versionsUrl: "http://127.0.0.1:9/versions",
    endpoints: [],
    roles: options.partnerRoles ?? [party("DE", "EMS", "EMSP")],
    tokenToPartner: "unused-token-to-partner",
  });
  return {
    gateway,
    http: request(gateway.app.callback()),
    auth: `Token ${Buffer.from(token).toString("base64")}`,
    path: (version, role, module, rest = "") => `/ocpi/${version}/${role.toLowerCase()}/${module}${rest}`,
    logs,
    close: async () => {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
