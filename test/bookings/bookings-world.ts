import pino from "pino";
import type { GatewayConfig } from "../../config/types";
import { Gateway } from "../../app/gateway";
import { testGatewayConfig, versionsUrlOf, type PartySpec, type StoreSpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, writeGatewayConfig, type HttpResult } from "../support/gateway-process";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";

/**
 * The set-up of the bookings tests: a CPO gateway (NL/CPO) serving bookings, sessions and CDRs on `local`
 * with two BookingLocations from its config (`adapters.local.bookings`), and two eMSP gateways (DE/EMS and
 * DE/OTH) registered with it in 2.3.0, each serving the bookings Receiver. All in-process over loopback.
 */

export type Json = Record<string, any>;

export const ADMIN_TOKEN = "bookings-e2e-admin-token-0123456789";
export const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
export const EMS: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
export const OTH: PartySpec = { country_code: "DE", party_id: "OTH", role: "EMSP" };
export const OTH_TOKEN = { country_code: "DE", party_id: "OTH", uid: "0THER0001", type: "RFID", contract_id: "DE-OTH-C0001" };

const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
/** An instant `minutes` from the world's start, whole seconds. */
export const at = (origin: number, minutes: number): string => iso(origin + minutes * MINUTE);

const terms = (noshowTimeout: number) => ({
  supported_access_methods: ["TOKEN"],
  change_until_minutes: 30,
  cancel_until_minutes: 60,
  early_start_allowed: true,
  early_start_time: 10,
  noshow_timeout: noshowTimeout,
});

/** BL-MAIN at LOC1: one calendar open from 1 h before to 8 h after the origin. BL-SOON at LOC2: its no-show timeout is 0. */
export const bookingLocations = (origin: number): Json[] => [
  {
    country_code: "NL",
    party_id: "CPO",
    id: "BL-MAIN",
    location_id: "LOC1",
    booking_option: { evse_uid: "#NA" },
    tariff_ids: ["BOOKFEE"],
    booking_terms: terms(15),
    calendars: [
      {
        id: "CAL1",
        begin_from: at(origin, -60),
        end_before: at(origin, 24 * 60),
        timeslot_increment: 15,
        available_timeslots: [{ start_date_time: at(origin, -60), end_date_time: at(origin, 8 * 60), max_power: 22000 }],
        last_updated: "2025-01-01T00:00:00Z",
      },
    ],
    last_updated: "2025-01-01T00:00:00Z",
  },
  {
    country_code: "NL",
    party_id: "CPO",
    id: "BL-SOON",
    location_id: "LOC2",
    booking_terms: terms(0),
    calendars: [
      {
        id: "CAL2",
        begin_from: at(origin, -60),
        end_before: at(origin, 24 * 60),
        available_timeslots: [{ start_date_time: at(origin, -60), end_date_time: at(origin, 8 * 60) }],
        last_updated: "2025-01-01T00:00:00Z",
      },
    ],
    last_updated: "2025-01-01T00:00:01Z",
  },
];

/** A BookingRequest body as the eMSP's backend gives it to its gateway's admin API (requester and ids left to it). */
export const requestBody = (origin: number, fromMinutes: number, toMinutes: number, extra: Json = {}): Json => ({
  location_id: "LOC1",
  booking_location_id: "BL-MAIN",
  tokens: [EMS_CDR_TOKEN],
  period: { start_date_time: at(origin, fromMinutes), end_date_time: at(origin, toMinutes) },
  ...extra,
});

export interface Emsp {
  gateway: Gateway;
  url: string;
  /** its config file, which the CLI runs on beside it */
  configFile: string;
  /** the token this eMSP calls the CPO with */
  tokenAtCpo: string;
  /** the token the CPO calls this eMSP with */
  cpoToken: string;
}

export interface BookingsWorld {
  origin: number;
  cpo: Gateway;
  /** the CPO gateway's config, for a second instance on its store */
  cpoConfig: GatewayConfig;
  cpoUrl: string;
  emsp: Emsp;
  other: Emsp;
  close(): Promise<void>;
}

const silent = { logger: pino({ level: "silent" }) };

export const admin = (baseUrl: string, method: string, route: string, body?: unknown): Promise<HttpResult> =>
  ocpiRequest(method, `${baseUrl}/admin/v1${route}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body });

/** The CPO's Sender interface of bookings, called as one of the eMSPs. */
export const atCpo = (world: BookingsWorld, emsp: Emsp, method: string, rest: string, body?: unknown): Promise<HttpResult> =>
  ocpiRequest(method, `${world.cpoUrl}/ocpi/2.3.0/sender/bookings${rest}`, { token: emsp.tokenAtCpo, body });

/** What an eMSP holds of a booking, read through its Receiver interface with the CPO's token. */
export const heldBy = async (emsp: Emsp, bookingId: string): Promise<Json | undefined> => {
  const result = await ocpiRequest("GET", `${emsp.url}/ocpi/2.3.0/receiver/bookings/NL/CPO/${bookingId}`, { token: emsp.cpoToken });
  return result.status === 404 ? undefined : result.body.data;
};

export const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const EMSP_MODULES = { bookings: { adapter: "local", roles: ["RECEIVER"] }, cdrs: { adapter: "local", roles: ["RECEIVER"] } };

/**
 * `decisionMs`: the CPO's `local` backend answers PENDING and decides that much later (adapters.local.booking_decision_ms);
 * `cpoStore`: the CPO gateway's store (default SQLite).
 */
export const startWorld = async ({ decisionMs, cpoStore }: { decisionMs?: number; cpoStore?: StoreSpec } = {}): Promise<BookingsWorld> => {
  const origin = Math.floor(Date.now() / 1000) * 1000;
  const [cpoPort, emsPort, othPort] = await freePorts(3);
  const cpoConfig = testGatewayConfig({
    port: cpoPort,
    party: CPO,
    store: cpoStore,
    modules: { bookings: { adapter: "local" }, sessions: { adapter: "local" }, cdrs: { adapter: "local" } },
    adapters: { local: { bookings: bookingLocations(origin), ...(decisionMs ? { booking_decision_ms: decisionMs } : {}) } },
    server: { admin_token: ADMIN_TOKEN, booking_check_interval_ms: 100 },
    partners: [
      { id: "emsp", token_a: `bookings-A-ems-${cpoPort}`, versions_url: versionsUrlOf(emsPort) },
      { id: "other", token_a: `bookings-A-oth-${cpoPort}`, versions_url: versionsUrlOf(othPort) },
    ],
  });
  const cpo = await Gateway.create(cpoConfig, silent);
  await cpo.listen();
  const emspAt = async (port: number, party: PartySpec, partner: string): Promise<Emsp> => {
    const written = writeGatewayConfig({
      port,
      party,
      modules: EMSP_MODULES,
      server: { admin_token: ADMIN_TOKEN },
      partners: [{ id: "cpo", token_a: `bookings-A-${party.party_id.toLowerCase()}-${cpoPort}`, versions_url: versionsUrlOf(cpoPort) }],
    });
    const gateway = await Gateway.create(written.config, silent);
    await gateway.listen();
    await gateway.credentials.register("cpo");
    const tokenAtCpo = (await gateway.registry.get("cpo"))!.tokenToPartner!;
    const cpoToken = (await cpo.registry.get(partner))!.tokenToPartner!;
    return { gateway, url: `http://127.0.0.1:${port}`, configFile: written.file, tokenAtCpo, cpoToken };
  };
  const emsp = await emspAt(emsPort, EMS, "emsp");
  const other = await emspAt(othPort, OTH, "other");
  return {
    origin,
    cpo,
    cpoConfig,
    cpoUrl: `http://127.0.0.1:${cpoPort}`,
    emsp,
    other,
    close: async () => {
      await Promise.all([cpo.close(), emsp.gateway.close(), other.gateway.close()]);
    },
  };
};
