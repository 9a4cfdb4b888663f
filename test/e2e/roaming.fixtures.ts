/** The parties, runs and seed objects of the roaming test (test/e2e/roaming.test.ts), its two gateways, and helpers to compare what went across. */
import "reflect-metadata";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pino from "pino";
import type { HeaderPrefix, VersionNumber } from "../../config/types";
import type { PartyRef } from "../../core/protocol/types";
import type { ObjectType } from "../../core/contract/object-type";
import { silentTranslation } from "../../core/model/object-type";
import { Gateway } from "../../app/gateway";
import { type PartySpec, tempDir, testGatewayConfig, versionsUrlOf } from "../support/gateway-config";
import { numberedStation } from "../support/ocpi-objects";
import type { Location } from "../../plugins/locations/model";
import type { Tariff } from "../../plugins/tariffs/model";
import type { Token } from "../../plugins/tokens/model";
import type { Session, SessionPatch } from "../../plugins/sessions/model";
import type { Cdr, CdrTariff } from "../../plugins/cdrs/model";

export type Json = Record<string, any>;

export const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
export const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
export const CPO_REF: PartyRef = { country_code: "NL", party_id: "CPO" };
export const EMSP_REF: PartyRef = { country_code: "DE", party_id: "EMS" };
export const ALL: VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
export const MODULES = ["locations", "tariffs", "tokens", "sessions", "cdrs"];

export interface Run {
  version: VersionNumber;
  /** versions the eMSP allows with the CPO */
  emspVersions: VersionNumber[];
  /** routing header prefix the CPO uses towards the eMSP */
  cpoPrefix: HeaderPrefix;
  /** seeds carry 2.3.0-only fields */
  rich: boolean;
  /** sessions and CDRs are pushed (2.2+) */
  sessions: boolean;
}

export const RUNS: Run[] = [
  { version: "2.3.0", emspVersions: ALL, cpoPrefix: "OCPI", rich: true, sessions: true },
  { version: "2.2.1", emspVersions: ["2.2.1"], cpoPrefix: "ROAMING", rich: false, sessions: true },
  { version: "2.1.1", emspVersions: ["2.1.1"], cpoPrefix: "OCPI", rich: false, sessions: false },
];

/* ---------------------------------------------------------------- seeds (2.3.0 form) */

// 6 decimals: valid coordinates in every version (2.1.1 wants exactly 6)
export const COORDINATES = { latitude: "52.090730", longitude: "5.121420" };

export const location = (n: number, rich: boolean): Location => {
  const stamp = `2024-03-0${n}T10:00:00Z`;
  return {
    country_code: "NL",
    party_id: "CPO",
    id: `LOC${n}`,
    publish: true,
    ...numberedStation(n),
    parking_type: "ON_STREET",
    evses: [
      {
        uid: `EVSE${n}-1`,
        evse_id: `NL*CPO*E${n}1`,
        status: "AVAILABLE",
        capabilities: ["RFID_READER", "REMOTE_START_STOP_CAPABLE"],
        connectors: [
          {
            id: "1",
            standard: "IEC_62196_T2",
            format: "SOCKET",
            power_type: "AC_3_PHASE",
            max_voltage: 230,
            max_amperage: 32,
            max_electric_power: 22080,
            tariff_ids: [`T${n}`],
            last_updated: stamp,
            ...(rich ? { capabilities: ["ISO_15118_2_PLUG_AND_CHARGE"] } : {}),
          },
        ],
        last_updated: stamp,
        ...(rich ? { accepted_service_providers: ["DE*EMS"] } : {}),
      },
    ],
    facilities: ["CAFE"],
    time_zone: "Europe/Amsterdam",
    opening_times: { twentyfourseven: true },
    last_updated: stamp,
    ...(rich ? { help_phone: "+31301234567" } : {}),
  };
};

export const tariff = (n: number, rich: boolean): Tariff => ({
  country_code: "NL",
  party_id: "CPO",
  id: `T${n}`,
  currency: "EUR",
  type: "REGULAR",
  tariff_alt_text: [{ language: "en", text: `Tariff ${n}` }],
  min_price: { before_taxes: 1, after_taxes: 1.21 },
  elements: [
    {
      price_components: [{ type: "ENERGY", price: 0.25 + n / 100, vat: 21, step_size: 1 }],
      restrictions: { day_of_week: ["MONDAY", "TUESDAY"], start_time: "07:00", end_time: "19:00" },
    },
    { price_components: [{ type: "TIME", price: 2, vat: 21, step_size: 60 }] },
  ],
  // YES is 2.3.0-only (older prices exclude VAT)
  tax_included: rich && n === 1 ? "YES" : "NO",
  last_updated: `2024-02-0${n}T08:00:00Z`,
});

export const token = (uid: string, extra: Partial<Token> = {}): Token => ({
  country_code: "DE",
  party_id: "EMS",
  uid,
  type: "RFID",
  contract_id: `DE-EMS-C${uid}`,
  visual_number: `V-${uid}`,
  issuer: "EMS eMobility",
  valid: true,
  whitelist: "ALLOWED",
  language: "de",
  last_updated: "2024-01-01T00:00:00Z",
  ...extra,
});

export const tokens = (version: VersionNumber): Token[] => [
  token("A1B2C3D4"),
  token("B10CKED1", { valid: false, last_updated: "2024-01-02T00:00:00Z" }),
  // real-time authorization only, per location; a 2.1.1 authorize can name RFID and OTHER only, so RFID there
  token("APP00001", { type: version === "2.1.1" ? "RFID" : "APP_USER", whitelist: "NEVER", last_updated: "2024-01-03T00:00:00Z" }),
  // types older versions lack: OTHER in 2.1.1 (APP_USER, EMAID) and 2.2.1 (EMAID)
  token("APP00002", { type: "APP_USER", last_updated: "2024-01-04T00:00:00Z" }),
  token("NL-EMS-000001-X", { type: "EMAID", group_id: "G1", energy_contract: { supplier_name: "Green" }, last_updated: "2024-01-05T00:00:00Z" }),
];

export const cdrToken = { country_code: "DE", party_id: "EMS", uid: "A1B2C3D4", type: "RFID", contract_id: "DE-EMS-CA1B2C3D4" };

export const period = (start: string, kwh: number, tariffId: string) => ({
  start_date_time: start,
  dimensions: [
    { type: "ENERGY", volume: kwh },
    { type: "TIME", volume: 0.25 },
  ],
  tariff_id: tariffId,
});

export const session = (authorizationReference: string): Session => ({
  country_code: "NL",
  party_id: "CPO",
  id: "SES-0001",
  start_date_time: "2024-05-01T10:00:00Z",
  kwh: 0,
  cdr_token: cdrToken,
  auth_method: "AUTH_REQUEST",
  authorization_reference: authorizationReference,
  location_id: "LOC1",
  evse_uid: "EVSE1-1",
  connector_id: "1",
  meter_id: "M-1",
  currency: "EUR",
  status: "ACTIVE",
  last_updated: "2024-05-01T10:00:05Z",
});

export const PATCHES: SessionPatch[] = [
  { charging_periods: [period("2024-05-01T10:00:05Z", 2.5, "T1")], last_updated: "2024-05-01T10:15:00Z" },
  { charging_periods: [period("2024-05-01T10:15:00Z", 3, "T1")], last_updated: "2024-05-01T10:30:00Z" },
  {
    kwh: 5.5,
    status: "COMPLETED",
    end_date_time: "2024-05-01T10:30:00Z",
    total_cost: { before_taxes: 2.5, taxes: [{ name: "VAT", amount: 0.53 }] },
    last_updated: "2024-05-01T10:30:05Z",
  },
];

export const cdr = (authorizationReference: string, rich: boolean): Cdr => ({
  country_code: "NL",
  party_id: "CPO",
  id: "CDR-0001",
  start_date_time: "2024-05-01T10:00:00Z",
  end_date_time: "2024-05-01T10:30:00Z",
  session_id: "SES-0001",
  cdr_token: cdrToken,
  auth_method: "AUTH_REQUEST",
  authorization_reference: authorizationReference,
  cdr_location: {
    id: "LOC1",
    name: "Station 1",
    address: "Main street 1",
    city: "Utrecht",
    postal_code: "3511 AA",
    country: "NLD",
    coordinates: COORDINATES,
    evse_uid: "EVSE1-1",
    evse_id: "NL*CPO*E11",
    connector_id: "1",
    connector_standard: "IEC_62196_T2",
    connector_format: "SOCKET",
    connector_power_type: "AC_3_PHASE",
  },
  meter_id: "M-1",
  currency: "EUR",
  tariffs: [tariff(1, rich) as CdrTariff],
  charging_periods: [period("2024-05-01T10:00:05Z", 2.5, "T1"), period("2024-05-01T10:15:00Z", 3, "T1")],
  total_cost: { before_taxes: 2.5, taxes: [{ name: "VAT", amount: 0.53 }] },
  total_energy: 5.5,
  total_energy_cost: { before_taxes: 1.43, taxes: [{ name: "VAT", amount: 0.3 }] },
  total_time: 0.5,
  total_time_cost: { before_taxes: 1.07, taxes: [{ name: "VAT", amount: 0.23 }] },
  last_updated: "2024-05-01T10:31:00Z",
});

/* ---------------------------------------------------------------- helpers */

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** What a canonical object becomes after the trip down to `version` and back up (the identity for 2.3.0). */
export const viaVersion = <T>(type: ObjectType<T>, canonical: T, version: VersionNumber, owner: PartyRef): T =>
  type.up(clone(type.down(clone(canonical), version, silentTranslation())), version, { ...silentTranslation(), owner });

export const byId = <T extends { id?: string; uid?: string }>(items: T[]): T[] =>
  [...items].sort((a, b) => String(a.id ?? a.uid).localeCompare(String(b.id ?? b.uid)));

export const collect = async <T>(pages: AsyncGenerator<T[]>): Promise<{ items: T[]; pages: number }> => {
  const items: T[] = [];
  let count = 0;
  for await (const page of pages) {
    items.push(...page);
    count++;
  }
  return { items, pages: count };
};

/** Ports the OS hands out now; released at once so the gateways can bind them (public_url must be right at create time). */
export const freePorts = async (count: number): Promise<number[]> => {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
};

/* ---------------------------------------------------------------- the two gateways */

/** A CPO gateway and an eMSP gateway of one run, not yet listening nor registered, and the warnings each logged. */
export interface Pair {
  cpo: Gateway;
  emsp: Gateway;
  cpoPort: number;
  emspPort: number;
  cpoUrl: string;
  emspUrl: string;
  logs: { cpo: string[]; emsp: string[] };
  close: () => Promise<void>;
}

/**
 * Starts the two gateways of `run` on loopback, each with its own SQLite store and `local` adapter seeded
 * with `seeds` (the CPO's locations and tariffs, the eMSP's tokens), and each configured with the other
 * as a partner sharing `tokenA`.
 */
export const startPair = async (run: Run, tokenA: string, seeds: { locations: Location[]; tariffs: Tariff[]; tokens: Token[] }): Promise<Pair> => {
  const [cpoPort, emspPort] = await freePorts(2);
  const seed = (name: string, content: Json): string => {
    const file = path.join(tempDir("ocpi-roaming-seed-"), name);
    fs.writeFileSync(file, JSON.stringify(content));
    return file;
  };
  const modules = Object.fromEntries(MODULES.map((m) => [m, { adapter: "local" }]));
  const cpoConfig = testGatewayConfig({
    port: cpoPort,
    party: CPO,
    modules,
    adapters: { local: { seed: seed("cpo.json", { locations: seeds.locations, tariffs: seeds.tariffs }) } },
    // two per page: the pulls follow Link headers
    server: { max_page_limit: 2, log_level: "warn" },
    partners: [{ id: "emsp", token_a: tokenA, versions_url: versionsUrlOf(emspPort), header_prefix: run.cpoPrefix }],
  });
  const emspConfig = testGatewayConfig({
    port: emspPort,
    party: EMSP,
    modules,
    adapters: { local: { seed: seed("emsp.json", { tokens: seeds.tokens }) } },
    partners: [{ id: "cpo", token_a: tokenA, versions_url: versionsUrlOf(cpoPort), versions: run.emspVersions }],
  });
  const logs = { cpo: [] as string[], emsp: [] as string[] };
  const logger = (into: string[]) => pino({ level: "warn" }, { write: (line: string) => void into.push(line) });
  const cpo = await Gateway.create(cpoConfig, { logger: logger(logs.cpo) });
  const emsp = await Gateway.create(emspConfig, { logger: logger(logs.emsp) }).catch(async (error) => {
    await cpo.close();
    throw error;
  });
  const close = () => Promise.all([cpo.close(), emsp.close()]).then(() => undefined);
  return { cpo, emsp, cpoPort, emspPort, cpoUrl: `http://127.0.0.1:${cpoPort}`, emspUrl: `http://127.0.0.1:${emspPort}`, logs, close };
};
