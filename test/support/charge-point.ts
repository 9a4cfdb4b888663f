import fs from "node:fs";
import path from "node:path";
import type { PartyRef } from "../../core/protocol/types";
import type { CommandType } from "../../plugins/commands/model";
import { ocpiRequest, type HttpResult } from "./gateway-process";
import { tempDir } from "./gateway-config";
import { numberedStation, sessionOf, t2Connector } from "./ocpi-objects";

/**
 * Fixtures of the commands and charging-profile tests: a CPO's Location and
 * Sessions for the simulated charge point, an eMSP token, one request body
 * per command, and the admin API as the backend calls it.
 */

const STAMP = "2024-05-01T10:00:00Z";

const connector = (id: string) => t2Connector(id, STAMP);

/** LOC1: EVSE1 with one connector; EVSE2 needs a connector_id in START_SESSION. */
export const location = (owner: PartyRef) => ({
  ...owner,
  id: "LOC1",
  publish: true,
  ...numberedStation(1),
  time_zone: "Europe/Amsterdam",
  evses: [
    { uid: "EVSE1", status: "AVAILABLE", capabilities: ["REMOTE_START_STOP_CAPABLE"], connectors: [connector("1")], last_updated: STAMP },
    {
      uid: "EVSE2",
      status: "AVAILABLE",
      capabilities: ["REMOTE_START_STOP_CAPABLE", "START_SESSION_CONNECTOR_REQUIRED"],
      connectors: [connector("1"), connector("2")],
      last_updated: STAMP,
    },
  ],
  last_updated: STAMP,
});

/** The maximum power of the fixture's connectors: 230 V x 32 A x 3 phases. */
export const CONNECTOR_MAX_W = 230 * 32 * 3;

export const EMSP_PARTY: PartyRef = { country_code: "DE", party_id: "EMS" };

/** Session `id` at LOC1/EVSE1, started by a command with the token of EMSP_PARTY (ocpi-objects' EMS_CDR_TOKEN). */
export const session = (owner: PartyRef, id: string) =>
  sessionOf({ owner, id, status: "ACTIVE", start: STAMP, kwh: 1.5, authMethod: "COMMAND" });

export const token = {
  ...EMSP_PARTY,
  uid: "A1B2C3D4",
  type: "RFID",
  contract_id: "DE-EMS-CA1B2C3D4",
  issuer: "eMSP",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: STAMP,
};

/** A body per command, canonical (2.3.0) and without response_url: the gateway adds its own. */
export const COMMAND_BODIES: Record<CommandType, Record<string, unknown>> = {
  START_SESSION: { token, location_id: "LOC1", evse_uid: "EVSE1", connector_id: "1" },
  STOP_SESSION: { session_id: "SES1" },
  RESERVE_NOW: { token, expiry_date: "2030-01-01T00:00:00Z", reservation_id: "42", location_id: "LOC1", evse_uid: "EVSE1" },
  CANCEL_RESERVATION: { reservation_id: "42" },
  UNLOCK_CONNECTOR: { location_id: "LOC1", evse_uid: "EVSE1", connector_id: "1" },
};

/** A seed file for the CPO's `local` adapter: LOC1 and the given sessions. */
export const seedFile = (owner: PartyRef, sessionIds: string[] = ["SES1"]): string => {
  const file = path.join(tempDir("ocpi-cp-seed-"), "seed.json");
  fs.writeFileSync(file, JSON.stringify({ locations: [location(owner)], sessions: sessionIds.map((id) => session(owner, id)) }));
  return file;
};

export const ADMIN_TOKEN = "admin-token-0123456789abcdef";

/** The admin API of a gateway, as its backend calls it. */
export const adminApi = (baseUrl: string) => {
  const call = (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    ocpiRequest(method, `${baseUrl}/admin/v1${path}`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` }, body });
  return {
    get: (path: string) => call("GET", path),
    post: (path: string, body?: unknown) => call("POST", path, body),
    put: (path: string, body?: unknown) => call("PUT", path, body),
    delete: (path: string) => call("DELETE", path),
  };
};

/** Retries `check` until it stops throwing or `timeoutMs` has passed (then its last error is thrown). */
export const eventually = async <T>(check: () => Promise<T>, timeoutMs = 10_000, intervalMs = 50): Promise<T> => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
