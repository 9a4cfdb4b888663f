import "reflect-metadata";
import pino from "pino";
import type { Pool } from "mysql2/promise";
import { Gateway } from "../../app/gateway";
import type { GatewayConfig } from "../../config/types";
import { startEmspPartner, type EmspPartner } from "../support/emsp-partner";
import { startFakeSteve, type FakeSteve } from "../support/fake-steve";
import { freePorts, ocpiRequest, type HttpResult } from "../support/gateway-process";
import { testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { startMariaDb, type MariaDb, type TestDatabase } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { ALPHA, at, BETA, createSteveSchema, seedSteve, writerPool } from "../support/steve-seed";

/**
 * The end-to-end setup of issue #10 for one SteVe schema generation
 * (test/support/steve-schema.ts; docs/steve.md, "Versions supported": "3.14"
 * for 3.13+, `evse`/`evse_connector`; "3.12" for 3.9–3.12, `connector`): a
 * real MariaDB seeded with test/support/steve-seed.ts, the fake SteVe REST
 * API, a CPO gateway whose modules run on the `steve` adapter, and an eMSP
 * gateway (`local` adapter) registered with it through the real handshake
 * over loopback. What the eMSP must see of the seed is `expectedLocations`.
 */

export type Json = Record<string, any>;

export const REST_USER = "gateway";
export const REST_PASSWORD = "e2e-steve-api-password";
const TOKEN_A = "steve-e2e-token-a-0123456789";
const CPO = { country_code: "DE", party_id: "ABC", role: "CPO" as const };

/** 0.40/kWh and 0.50 per session, both plus 20 % VAT. */
export const TARIFF = {
  id: "T-AC",
  currency: "EUR",
  type: "REGULAR",
  tax_included: "NO",
  elements: [
    {
      price_components: [
        { type: "ENERGY", price: 0.4, vat: 20, step_size: 1 },
        { type: "FLAT", price: 0.5, vat: 20, step_size: 1 },
      ],
    },
  ],
  last_updated: "2026-01-01T00:00:00Z",
};

const BETA_COORDINATES = { latitude: "52.0907400", longitude: "5.1214200" };
const STATIC = {
  parking_type: "ON_STREET",
  facilities: ["SUPERMARKET"],
  opening_times: { twentyfourseven: true },
  operator: { name: "ABC Charging" },
};
const CAPABILITIES = ["REMOTE_START_STOP_CAPABLE", "RFID_READER"];
/** the YAML's connector_defaults (the adapter's): what a plug SteVe knows nothing about gets */
const DEFAULT_PLUG = { standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16 };

export const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");

export interface SteveCpo {
  maria: MariaDb;
  access: TestDatabase;
  /** writes into SteVe's database as SteVe would */
  writer: Pool;
  fake: FakeSteve;
  cpo: Gateway;
  emsp: EmspPartner;
  cpoUrl: string;
  /** the CPO gateway's log */
  logLines: string[];
  /** every request the eMSP answered: method, path, HTTP status */
  received: { method: string; path: string; status: number }[];
  close(): Promise<void>;
}

/** Variations of the set-up: what the eMSP serves, and the CPO's config (another tariff, a module on another adapter). */
export interface SteveCpoOptions {
  emspModules?: string[];
  cpoConfig?: (config: GatewayConfig) => GatewayConfig;
}

export async function startSteveCpo(generation: SteveGeneration, options: SteveCpoOptions = {}): Promise<SteveCpo> {
  const maria = await startMariaDb();
  const access = await maria.createDatabase("e2e_steve");
  const writer = writerPool(access.writer);
  await createSteveSchema(writer, generation);
  await seedSteve(writer, generation);
  const fake = await startFakeSteve({ writer, topology: generation === "3.14" ? "evse" : "connector", user: REST_USER, password: REST_PASSWORD });

  const [cpoPort, emspPort] = await freePorts(2);
  const cpoUrl = `http://127.0.0.1:${cpoPort}`;
  const config = testGatewayConfig({
    port: cpoPort,
    party: CPO,
    server: { command_timeout_seconds: 10 },
    modules: {
      locations: { adapter: "steve", roles: ["SENDER"] },
      sessions: { adapter: "steve", roles: ["SENDER"] },
      cdrs: { adapter: "steve", roles: ["SENDER"] },
      tariffs: { adapter: "steve", roles: ["SENDER"] },
      tokens: { adapter: "steve", roles: ["RECEIVER"] },
      commands: { adapter: "steve", roles: ["RECEIVER"] },
    },
    adapters: {
      steve: {
        database: access.reader,
        rest: { base_url: fake.baseUrl, user: REST_USER, password: REST_PASSWORD, answer_wait_ms: 500 },
        poll_interval_ms: 250,
        poll_overlap_ms: 60_000,
        unknown_tags: "ask_emsp",
        locations: {
          country_code: "DE",
          party_id: "ABC",
          currency: "EUR",
          time_zone: "Europe/Berlin",
          capabilities: CAPABILITIES,
          tariff_ids: ["T-AC"],
          ...STATIC,
          charge_boxes: { [BETA.id]: { name: "Beta Station", coordinates: BETA_COORDINATES } },
        },
        tariffs: [TARIFF],
      },
    },
    partners: [{ id: "emsp", token_a: TOKEN_A, versions_url: versionsUrlOf(emspPort) }],
  });
  const logLines: string[] = [];
  const received: SteveCpo["received"] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void logLines.push(line) });
  // Cache off: every sender GET reaches SteVe, so the outage answers are the adapter's (a cached answer would hide it).
  const configured = options.cpoConfig ? options.cpoConfig(config) : config;
  const cpo = await Gateway.create({ ...configured, cache: { ttl_seconds: {}, max_entries: 1, redis: false } }, { logger });
  await cpo.listen();
  const emsp = await startEmspPartner({
    port: emspPort,
    cpoUrl,
    tokenA: TOKEN_A,
    modules: options.emspModules ?? ["tokens", "locations", "commands", "sessions", "cdrs"],
    observe: (method, path, status) => void received.push({ method, path, status }),
  });
  return {
    ...{ maria, access, writer, fake, cpo, emsp, cpoUrl, logLines, received },
    async close() {
      await emsp.close();
      await cpo.close();
      await fake.close();
      await writer.end();
      await maria.stop();
    },
  };
}

/** A GET on the CPO's 2.3.0 Sender interfaces, as the eMSP. */
export const senderGet = (env: SteveCpo, path: string): Promise<HttpResult> =>
  ocpiRequest("GET", `${env.cpoUrl}/ocpi/2.3.0/sender/${path}`, { token: env.emsp.tokenToCpo });

export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A command the eMSP's backend issues through its admin API, and its state once the CPO reported the result. */
export async function command(env: SteveCpo, type: string, body: Json): Promise<Json> {
  const issued = await env.emsp.admin("POST", `/commands/cpo/${type}`, body);
  const uid = (issued.body as Json | undefined)?.data?.uid as string | undefined;
  if (issued.status !== 200 || !uid) throw new Error(`command ${type}: HTTP ${issued.status} ${JSON.stringify(issued.body)}`);
  return eventually(async () => {
    const { body: state } = (await env.emsp.admin("GET", `/commands/${uid}`)) as { body: Json };
    return state.data.state === "done" ? state.data : undefined;
  });
}

/** What the eMSP's store holds (its receivers' and sync's objects). */
export const stored = <T>(env: SteveCpo, collection: string, key: string) => env.emsp.gateway.store.get<T>(collection, key.toUpperCase());

export const requests = (env: SteveCpo, method: string, pathPart: string) => env.received.filter((r) => r.method === method && r.path.includes(pathPart));

const plug = (c: Json, updated: Date) => ({ id: "1", ...c, tariff_ids: ["T-AC"], last_updated: iso(updated) });

/**
 * The seed's two Locations as the eMSP must see them, oldest first. Before
 * 3.13 SteVe has no plugs (the YAML's connector defaults), no external
 * EVSE ids (the eMI3 pattern), no address time zone (the YAML's) and no
 * update times (the status rows date everything).
 */
export function expectedLocations(generation: SteveGeneration): Json[] {
  const current = generation === "3.14";
  const alpha = {
    country_code: "DE",
    party_id: "ABC",
    id: ALPHA.id,
    publish: true,
    name: "Alpha Hub",
    address: "Hauptstraße 12",
    city: "Berlin",
    postal_code: "10115",
    country: "DEU",
    coordinates: { latitude: "52.5200066", longitude: "13.4049540" },
    time_zone: "Europe/Berlin",
    ...STATIC,
    evses: [
      {
        uid: `${ALPHA.id}-1`,
        evse_id: "DE*ABC*ECBALPHA*1",
        status: "CHARGING",
        capabilities: [...CAPABILITIES, "RESERVABLE"],
        connectors: [
          current
            ? plug({ standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 400, max_amperage: 32, max_electric_power: 22_000 }, ALPHA.updatedAt)
            : plug(DEFAULT_PLUG, at(-60)),
        ],
        last_updated: iso(at(-60)),
      },
      {
        uid: `${ALPHA.id}-2`,
        evse_id: current ? ALPHA.evse2.external : "DE*ABC*ECBALPHA*2",
        // its reservation (seeded to expire at SEED_NOW + 50 min) is over
        status: "AVAILABLE",
        capabilities: [...CAPABILITIES, "RESERVABLE"],
        connectors: [
          current
            ? plug({ standard: "IEC_62196_T2_COMBO", format: "CABLE", power_type: "DC", max_voltage: 920, max_amperage: 200, max_electric_power: 150_000 }, ALPHA.updatedAt)
            : plug(DEFAULT_PLUG, at(-118)),
        ],
        last_updated: iso(at(-118)),
      },
    ],
    last_updated: iso(at(-60)),
  };
  const beta = {
    country_code: "DE",
    party_id: "ABC",
    id: BETA.id,
    publish: true,
    name: "Beta Station",
    address: "Oudegracht 231",
    city: "Utrecht",
    postal_code: "3511 NK",
    country: "NLD",
    coordinates: BETA_COORDINATES,
    // SteVe's address has no time zone: the YAML's default
    time_zone: "Europe/Berlin",
    ...STATIC,
    evses: [
      {
        uid: `${BETA.id}-1`,
        evse_id: "DE*ABC*ECBBETA*1",
        // the station as a whole reported Faulted
        status: "OUTOFORDER",
        capabilities: [...CAPABILITIES, "RESERVABLE"],
        // SteVe's plug has no attributes (3.13+), or there is no plug table: the YAML's connector defaults
        connectors: [plug(DEFAULT_PLUG, current ? BETA.connectorUpdatedAt : at(-30))],
        last_updated: iso(at(-30)),
      },
    ],
    last_updated: iso(at(-30)),
  };
  return [alpha, beta].sort((a, b) => a.last_updated.localeCompare(b.last_updated));
}
