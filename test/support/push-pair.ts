import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import type { GatewayConfig } from "../../config/types";
import { Gateway } from "../../app/gateway";
import { tempDir, testGatewayConfig, versionsUrlOf, type PartnerSpec, type PartySpec } from "./gateway-config";
import { freePorts, ocpiRequest, type HttpResult } from "./gateway-process";
import { stamp } from "./ocpi-objects";

/**
 * The set-up of test/e2e/push.test.ts: a CPO and an eMSP gateway in-process,
 * registered, the 2.3.0 objects the CPO pushes, and reads of the CPO's
 * outbox and of what the eMSP holds.
 */

export type Json = Record<string, any>;

export const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
export const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
export const OWNER = { country_code: "NL", party_id: "CPO" };
export const MODULES = Object.fromEntries(["locations", "tariffs", "tokens", "sessions", "cdrs"].map((m) => [m, { adapter: "local" }]));
export const ADMIN_TOKEN = "push-e2e-admin-token-0123456789";
/** none is AVAILABLE, the status EVSEs start with */
export const STATUSES = ["CHARGING", "BLOCKED", "OUTOFORDER", "RESERVED", "INOPERATIVE"];
export const silent = { logger: pino({ level: "silent" }) };

/* ---------------------------------------------------------------- objects (2.3.0); CDRs and sessions: numberedCdr, sessionAt */

export const location = (id: string, evses: number, at = 0): Json => ({
  country_code: "NL",
  party_id: "CPO",
  id,
  publish: true,
  address: `${id} street 1`,
  city: "Utrecht",
  // required in 2.1.1
  postal_code: "3511 AA",
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  time_zone: "Europe/Amsterdam",
  evses: Array.from({ length: evses }, (_, i) => ({
    uid: `${id}-E${i + 1}`,
    status: "AVAILABLE",
    connectors: [
      { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: stamp(at) },
    ],
    last_updated: stamp(at),
  })),
  last_updated: stamp(at),
});


export const tariff = (id: string): Json => ({
  country_code: "NL",
  party_id: "CPO",
  id,
  currency: "EUR",
  elements: [{ price_components: [{ type: "ENERGY", price: 0.3, vat: 21, step_size: 1 }] }],
  tax_included: "NO",
  last_updated: stamp(5),
});

export const statusPatch = (locationId: string, evseUid: string, status: string, at: number) => ({
  module: "locations",
  owner: OWNER,
  path: [locationId, evseUid],
  kind: "patch",
  object: { status, last_updated: stamp(at) },
});

/* ---------------------------------------------------------------- helpers */

export const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

export const admin = (baseUrl: string, method: string, route: string, body?: unknown, token = ADMIN_TOKEN): Promise<HttpResult> =>
  ocpiRequest(method, `${baseUrl}/admin/v1${route}`, { headers: { Authorization: `Bearer ${token}` }, body });

export const postEvent = async (baseUrl: string, event: unknown): Promise<void> => {
  const result = await admin(baseUrl, "POST", "/events", event);
  if (result.status !== 200 || result.body?.status_code !== 1000) throw new Error(`event refused: HTTP ${result.status} ${result.text}`);
};

export const outboxOf = async (baseUrl: string, partner: string): Promise<Json> => {
  const result = await admin(baseUrl, "GET", "/outbox");
  expect(result.body.status_code).toBe(1000);
  return result.body.data.find((p: Json) => p.partner === partner);
};

/** What a gateway holds of its partner's objects, read through its receiver interface with the partner's token. */
export const heldByEmsp = async (emspUrl: string, cpoToken: string, route: string, version = "2.3.0"): Promise<Json | undefined> => {
  const encoding = version === "2.1.1" ? "raw" : "base64";
  const result = await ocpiRequest("GET", `${emspUrl}/ocpi/${version}/receiver/${route}`, { token: cpoToken, encoding });
  if (result.status === 404) return undefined;
  expect(result.body.status_code).toBe(1000);
  return result.body.data;
};

export const evseStatuses = (location: Json | undefined): Record<string, string> =>
  Object.fromEntries((location?.evses ?? []).map((e: Json) => [e.uid, e.status]));

export const seedFile = (content: Json): string => {
  const file = path.join(tempDir("ocpi-push-seed-"), "seed.json");
  fs.writeFileSync(file, JSON.stringify(content));
  return file;
};

export interface Pair {
  cpo: Gateway;
  emsp: Gateway;
  emspConfig: GatewayConfig;
  cpoUrl: string;
  emspUrl: string;
  cpoToken: string;
  /** stops the eMSP gateway: its receiver is down */
  stopEmsp(): Promise<void>;
  /** starts it again on the same port and store */
  startEmsp(): Promise<void>;
  close(): Promise<void>;
}

/** A CPO and an eMSP gateway in-process; the eMSP registers with the CPO, in the highest of `emspVersions`. */
export const startPair = async (push: PartnerSpec["push"], cpoSeed: Json = {}, emspVersions?: PartnerSpec["versions"]): Promise<Pair> => {
  const [cpoPort, emspPort] = await freePorts(2);
  const tokenA = `push-token-A-${cpoPort}`;
  const cpoConfig = testGatewayConfig({
    port: cpoPort,
    party: CPO,
    modules: MODULES,
    adapters: { local: { seed: seedFile(cpoSeed) } },
    server: { admin_token: ADMIN_TOKEN },
    partners: [{ id: "emsp", token_a: tokenA, versions_url: versionsUrlOf(emspPort), push }],
  });
  const emspConfig = testGatewayConfig({
    port: emspPort,
    party: EMSP,
    modules: MODULES,
    server: { admin_token: ADMIN_TOKEN },
    partners: [{ id: "cpo", token_a: tokenA, versions_url: versionsUrlOf(cpoPort), versions: emspVersions }],
  });
  const cpo = await Gateway.create(cpoConfig, silent);
  await cpo.listen();
  const pair: Pair = {
    cpo,
    emsp: await Gateway.create(emspConfig, silent),
    emspConfig,
    cpoUrl: `http://127.0.0.1:${cpoPort}`,
    emspUrl: `http://127.0.0.1:${emspPort}`,
    cpoToken: "",
    async stopEmsp() {
      await pair.emsp.close();
    },
    async startEmsp() {
      pair.emsp = await Gateway.create(emspConfig, silent);
      await pair.emsp.listen();
    },
    async close() {
      await Promise.all([pair.cpo.close(), pair.emsp.close()]);
    },
  };
  await pair.emsp.listen();
  await pair.emsp.credentials.register("cpo");
  pair.cpoToken = (await cpo.registry.get("emsp"))!.tokenToPartner!;
  return pair;
};

