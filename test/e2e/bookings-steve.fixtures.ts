import "reflect-metadata";
import pino from "pino";
import type { Pool, RowDataPacket } from "mysql2/promise";
import { Gateway } from "../../app/gateway";
import { startFakeSteve, type FakeSteve } from "../support/fake-steve";
import { freePorts, ocpiRequest, type HttpResult } from "../support/gateway-process";
import { testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import { ALPHA, createSteveSchema, seedSteve, writerPool } from "../support/steve-seed";

/**
 * The world of test/e2e/bookings-steve.test.ts (issue #28): a real MariaDB with SteVe's 3.14 schema and the
 * shared seed (test/support/steve-seed.ts), the fake SteVe REST API playing the stations, a CPO gateway
 * (DE/ABC) whose locations, sessions, CDRs, tariffs, tokens, commands and bookings run on the `steve` adapter
 * (ALPHA bookable: docs/steve.md, "Bookings"), and two eMSP gateways (DE/EMS, DE/OTH; `local`) registered with
 * it through the real handshake in 2.3.0, each the bookings Receiver and the eMSP's admin API.
 */

export type Json = Record<string, any>;

export const ADMIN_TOKEN = "bookings-steve-admin-token-0123456789";
export const REST_USER = "gateway";
export const REST_PASSWORD = "bookings-steve-api-password";
const CPO: PartySpec = { country_code: "DE", party_id: "ABC", role: "CPO" };
const EMS: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
const OTH: PartySpec = { country_code: "DE", party_id: "OTH", role: "EMSP" };
/** ALPHA's DC EVSE: AVAILABLE in the seed (its reservation there is long over) */
export const EVSE = `${ALPHA.id}-2`;

const VAT = 20;
/** the connectors' tariff: 0.40/kWh and 0.50 per session */
const CONNECTOR_PRICES = [
  { type: "ENERGY", price: 0.4, vat: VAT, step_size: 1 },
  { type: "FLAT", price: 0.5, vat: VAT, step_size: 1 },
];
const TARIFF = { id: "T-AC", currency: "EUR", type: "REGULAR", tax_included: "NO", elements: [{ price_components: CONNECTOR_PRICES }], last_updated: "2026-01-01T00:00:00Z" };
/** a booked session's tariff (bookings.tariff_ids): a booking fee of 2.00 (a FLAT with a booking restriction), then the connector's prices */
export const BOOKED_TARIFF = {
  ...TARIFF,
  id: "T-BOOKED",
  elements: [{ price_components: [{ type: "FLAT", price: 2, vat: VAT, step_size: 1 }], restrictions: { booking: "BOOKING" } }, { price_components: CONNECTOR_PRICES }],
};

export interface Emsp {
  gateway: Gateway;
  url: string;
  /** the credentials token this eMSP calls the CPO with */
  tokenToCpo: string;
  /** a 2.3.0 Token of this eMSP's */
  token(uid: string): Json;
  admin(method: string, route: string, body?: unknown): Promise<HttpResult>;
}

export interface World {
  maria: MariaDb;
  writer: Pool;
  fake: FakeSteve;
  cpo: Gateway;
  cpoUrl: string;
  /** the CPO gateway's log */
  logLines: string[];
  emsp: Emsp;
  other: Emsp;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** BookingTerms.noshow_timeout, minutes (default 5) */
  noshowTimeout?: number;
}

const silent = { logger: pino({ level: "silent" }) };

const emspAt = async (port: number, party: PartySpec, tokenA: string, cpoUrl: string): Promise<Emsp> => {
  const modules = { tokens: {}, locations: {}, commands: {}, sessions: {}, cdrs: {}, bookings: { roles: ["RECEIVER"] } };
  const gateway = await Gateway.create(
    testGatewayConfig({
      port,
      party,
      modules: Object.fromEntries(Object.entries(modules).map(([m, spec]) => [m, { adapter: "local", ...spec }])),
      server: { admin_token: ADMIN_TOKEN },
      partners: [{ id: "cpo", token_a: tokenA, versions_url: `${cpoUrl}/ocpi/versions` }],
    }),
    silent,
  );
  await gateway.listen();
  await gateway.credentials.register("cpo");
  const url = `http://127.0.0.1:${port}`;
  return {
    gateway,
    url,
    tokenToCpo: (await gateway.registry.get("cpo"))!.tokenToPartner!,
    token: (uid) => ({ country_code: party.country_code, party_id: party.party_id, uid, type: "RFID", contract_id: `${party.country_code}-${party.party_id}-C${uid}`, issuer: "eMobility", valid: true, whitelist: "ALLOWED", last_updated: "2026-01-01T00:00:00Z" }),
    admin: (method, route, body) => ocpiRequest(method, `${url}/admin/v1${route}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body }),
  };
};

export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const maria = await startMariaDb();
  const access = await maria.createDatabase("e2e_bookings");
  const writer = writerPool(access.writer);
  await createSteveSchema(writer, "3.14");
  await seedSteve(writer, "3.14");
  const fake = await startFakeSteve({ writer, topology: "evse", user: REST_USER, password: REST_PASSWORD });
  const [cpoPort, emsPort, othPort] = await freePorts(3);
  const cpoUrl = `http://127.0.0.1:${cpoPort}`;
  const logLines: string[] = [];
  const cpo = await Gateway.create(
    testGatewayConfig({
      port: cpoPort,
      party: CPO,
      server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: 10, booking_check_interval_ms: 100 },
      modules: {
        ...Object.fromEntries(["locations", "sessions", "cdrs", "tariffs", "bookings"].map((m) => [m, { adapter: "steve", roles: ["SENDER"] }])),
        tokens: { adapter: "steve", roles: ["RECEIVER"] },
        commands: { adapter: "steve", roles: ["RECEIVER"] },
      },
      adapters: {
        steve: {
          database: access.reader,
          rest: { base_url: fake.baseUrl, user: REST_USER, password: REST_PASSWORD, answer_wait_ms: 500 },
          poll_interval_ms: 250,
          locations: { country_code: "DE", party_id: "ABC", currency: "EUR", time_zone: "Europe/Berlin", tariff_ids: ["T-AC"] },
          tariffs: [TARIFF, BOOKED_TARIFF],
          bookings: {
            locations: [ALPHA.id],
            horizon_days: 1,
            reserve_ahead_minutes: 60,
            booking_terms: {
              supported_access_methods: ["TOKEN"],
              change_until_minutes: 0,
              cancel_until_minutes: 0,
              noshow_timeout: options.noshowTimeout ?? 5,
            },
            tariff_ids: ["T-BOOKED"],
          },
        },
      },
      partners: [
        { id: "emsp", token_a: `bookings-steve-A-ems-${cpoPort}`, versions_url: versionsUrlOf(emsPort) },
        { id: "other", token_a: `bookings-steve-A-oth-${cpoPort}`, versions_url: versionsUrlOf(othPort) },
      ],
    }),
    { logger: pino({ level: "info" }, { write: (line: string) => void logLines.push(line) }) },
  );
  await cpo.listen();
  const emsp = await emspAt(emsPort, EMS, `bookings-steve-A-ems-${cpoPort}`, cpoUrl);
  const other = await emspAt(othPort, OTH, `bookings-steve-A-oth-${cpoPort}`, cpoUrl);
  // What SteVe holds at the poller's first poll counts as published: a test's sessions come after it.
  await eventually(() => logLines.some((l) => l.includes("steve: first poll")));
  return {
    ...{ maria, writer, fake, cpo, cpoUrl, logLines, emsp, other },
    async close() {
      await Promise.all([emsp.gateway.close(), other.gateway.close()]);
      await cpo.close();
      await fake.close();
      await writer.end();
      await maria.stop();
    },
  };
}

/** Polls `check` until it returns something truthy (or throws after `ms`). */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A BookingRequest as the eMSP's backend gives it to its gateway (requester and ids left to it): `token` on EVSE, from `startMs` to `endMs`. */
export const bookingRequest = (token: Json, startMs: number, endMs: number, evseUid = EVSE): Json => ({
  location_id: ALPHA.id,
  booking_location_id: ALPHA.id,
  booking_option: { evse_uid: evseUid },
  tokens: [{ country_code: token.country_code, party_id: token.party_id, uid: token.uid, type: token.type, contract_id: token.contract_id }],
  period: { start_date_time: iso(startMs), end_date_time: iso(endMs) },
});

/** The eMSP pushes its token to the CPO (an ocpp_tag in SteVe) and requests a booking through its admin API: the CPO's answer. */
export async function book(world: World, emsp: Emsp, uid: string, startMs: number, endMs: number): Promise<Json> {
  const put = await ocpiRequest("PUT", `${world.cpoUrl}/ocpi/2.3.0/receiver/tokens/DE/${emsp.token(uid).party_id}/${uid}`, { token: emsp.tokenToCpo, body: emsp.token(uid) });
  if (put.status >= 300) throw new Error(`token PUT: HTTP ${put.status}`);
  const answer = await emsp.admin("POST", "/bookings/cpo", bookingRequest(emsp.token(uid), startMs, endMs));
  if (answer.status !== 200) throw new Error(`booking request: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return (answer.body as Json).data;
}

/** The booking as the eMSP holds it: the CPO's answer, then what it pushed. */
export const held = async (emsp: Emsp, bookingId: string): Promise<Json | undefined> => {
  const got = await emsp.admin("GET", `/bookings/cpo/${bookingId}`);
  return got.status === 200 ? (got.body as Json).data : undefined;
};

/** SteVe's reservation rows for an idTag, oldest first. */
export async function reservationsOf(world: World, idTag: string): Promise<Json[]> {
  const [rows] = await world.writer.query<RowDataPacket[]>(
    `SELECT r.reservation_pk AS reservationPk, e.charge_box_id AS chargeBoxId, e.evse_id AS evseId, r.status, r.transaction_pk AS transactionPk,
       r.expiry_datetime AS expiry FROM reservation r JOIN evse e ON e.evse_pk = r.evse_pk WHERE r.id_tag = ? ORDER BY r.reservation_pk`,
    [idTag],
  );
  return rows;
}

/** A command the eMSP's backend issues through its admin API, once the CPO reported its result. */
export async function command(emsp: Emsp, type: string, body: Json): Promise<Json> {
  const issued = await emsp.admin("POST", `/commands/cpo/${type}`, body);
  if (issued.status !== 200) throw new Error(`command ${type}: HTTP ${issued.status}`);
  const uid = (issued.body as Json).data.uid as string;
  return eventually(async () => {
    const state = ((await emsp.admin("GET", `/commands/${uid}`)).body as Json).data;
    return state.state === "done" ? state : undefined;
  });
}
