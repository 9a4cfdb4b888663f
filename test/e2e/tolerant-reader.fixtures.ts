/** The parties and off-spec objects of the tolerant reader test (test/e2e/tolerant-reader.test.ts), as the hub sent them, and its world. */
import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { OffSpecPartner } from "../support/off-spec-partner";
import { sessionOf } from "../support/ocpi-objects";

export type Json = Record<string, any>;

export const ADMIN_TOKEN = "tolerant-reader-admin-token-0123456789";
export const REPAIR = { country_code: "NL", party_id: "QRK" };
export const REJECT = { country_code: "NL", party_id: "QRR" };
export const LOG = { country_code: "NL", party_id: "QRL" };
export const STAMP = "2025-03-01T10:00:00Z";
export const LOCATIONS = 3;

/* ---------------------------------------------------------------- off-spec objects, as the hub sent them */

export const offSpecLocation = (owner: typeof REPAIR, id: string): Json => ({
  ...owner,
  id,
  publish: true,
  name: `Quirky ${id}`,
  address: "Main street 1",
  city: "Utrecht",
  postal_code: "3511 AA",
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  // a list of DisplayText where one is required
  related_locations: [{ latitude: "52.090740", longitude: "5.121430", name: [{ language: "nl", text: "Ingang" }, { language: "en", text: "Entrance" }] }],
  // outside the 2.2.1 enumeration: the hub's name for MALL
  facilities: ["SHOPPING_MALL", "WIFI"],
  // twentyfourseven missing, weekdays as strings
  opening_times: {
    regular_hours: [
      { weekday: "1", period_begin: "08:00", period_end: "20:00" },
      { weekday: "2", period_begin: "08:00", period_end: "20:00" },
    ],
  },
  evses: [
    {
      uid: "EVSE1",
      evse_id: "NL*QRK*E1",
      status: "AVAILABLE",
      connectors: [
        { id: "1", standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 32, last_updated: STAMP },
      ],
      last_updated: STAMP,
    },
  ],
  time_zone: "Europe/Amsterdam",
  last_updated: STAMP,
});

/** A token without its owner (country_code, party_id), as the hub sends it in Sessions and CDRs. */
export const ownerlessToken = { uid: "RFID0001", type: "RFID", contract_id: "DE-EMS-C0001" };

/** off the spec only in its token */
export const offSpecSession = (owner: typeof REPAIR, id: string): Json =>
  sessionOf({ owner, id, status: "ACTIVE", start: STAMP, kwh: 1.5, token: ownerlessToken });

/** A CdrLocation without address, city and country; total_time as a string. */
export const offSpecCdr = (owner: typeof REPAIR, id: string, locationId = "LOC1"): Json => ({
  ...owner,
  id,
  start_date_time: STAMP,
  end_date_time: "2025-03-01T10:30:00Z",
  session_id: "SES1",
  cdr_token: ownerlessToken,
  auth_method: "WHITELIST",
  cdr_location: {
    id: locationId,
    coordinates: { latitude: "52.090730", longitude: "5.121420" },
    evse_uid: "EVSE1",
    evse_id: "NL*QRK*E1",
    connector_id: "1",
    connector_standard: "IEC_62196_T2",
    connector_format: "SOCKET",
    connector_power_type: "AC_3_PHASE",
  },
  currency: "EUR",
  charging_periods: [{ start_date_time: STAMP, dimensions: [{ type: "ENERGY", volume: 1.5 }] }],
  total_cost: { excl_vat: 0.75, incl_vat: 0.9 },
  total_energy: 1.5,
  total_time: "0.5",
  last_updated: "2025-03-01T10:31:00Z",
});

export const listsOf = (owner: typeof REPAIR) => ({
  locations: Array.from({ length: LOCATIONS }, (_, i) => offSpecLocation(owner, `LOC${i + 1}`)),
  sessions: [offSpecSession(owner, "SES1"), offSpecSession(owner, "SES2")],
  // CDR3's Location is held nowhere: it cannot be repaired
  cdrs: [offSpecCdr(owner, "CDR1"), offSpecCdr(owner, "CDR2"), offSpecCdr(owner, "CDR3", "LOC-NOWHERE")],
});

/* ---------------------------------------------------------------- the world */

/** A CommandResponse with the result in lower case and the timeout as a string. */
const answers = {
  "/2.2.1/commands/START_SESSION": { result: "accepted", timeout: "30" },
  "/2.2.1/chargingprofiles/SES1": { result: "accepted", timeout: "30" },
};

/** The eMSP gateway, the four 2.2.1 CPOs it is configured with, and every line it logged (warnings and above). */
export interface World {
  gateway: Gateway;
  url: string;
  lines: Json[];
  /** strictness repair, send_nulls_for_optional; its credentials name its one role as an object */
  repairPartner: OffSpecPartner;
  /** strictness reject */
  rejectPartner: OffSpecPartner;
  /** strictness log */
  logPartner: OffSpecPartner;
  /** credentials naming their one role as an object, under the default strictness (reject); not registered */
  strictCredentials: OffSpecPartner;
  close: () => Promise<void>;
}

/** Starts the partners and the eMSP gateway (SQLite, `local` adapters) and registers it with the repair, reject and log partners. */
export const startWorld = async (): Promise<World> => {
  const repairPartner = new OffSpecPartner({ party: REPAIR, lists: listsOf(REPAIR), answers, singleRole: true });
  const rejectPartner = new OffSpecPartner({ party: REJECT, lists: listsOf(REJECT), answers });
  const logPartner = new OffSpecPartner({ party: LOG, lists: listsOf(LOG) });
  const strictCredentials = new OffSpecPartner({ party: { country_code: "NL", party_id: "QRC" }, lists: {}, singleRole: true });
  const partners = [repairPartner, rejectPartner, logPartner, strictCredentials];
  const lines: Json[] = [];
  let gateway: Gateway | undefined;
  const close = async () => {
    await gateway?.close();
    await Promise.all(partners.map((p) => p.close()));
  };
  try {
    for (const partner of partners) await partner.start();
    const [port] = await freePorts(1);
    const local = { adapter: "local" };
    const config = testGatewayConfig({
      port,
      party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
      modules: { locations: local, sessions: local, cdrs: local, tokens: local, commands: local, chargingprofiles: local },
      server: { admin_token: ADMIN_TOKEN },
      partners: [
        { id: "repairing", token_a: "repair-partner-token-A-0123", versions_url: repairPartner.versionsUrl, strictness: "repair", send_nulls_for_optional: true },
        { id: "rejecting", token_a: "reject-partner-token-A-0123", versions_url: rejectPartner.versionsUrl, strictness: "reject" },
        { id: "logging", token_a: "log-partner-token-A-0123456", versions_url: logPartner.versionsUrl, strictness: "log" },
        { id: "strict-credentials", token_a: "strict-credentials-token-A-0123", versions_url: strictCredentials.versionsUrl },
      ],
    });
    const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    gateway = await Gateway.create(config, { logger });
    await gateway.listen();
    await gateway.credentials.register("repairing");
    await gateway.credentials.register("rejecting");
    await gateway.credentials.register("logging");
    return { gateway, url: `http://127.0.0.1:${port}`, lines, repairPartner, rejectPartner, logPartner, strictCredentials, close };
  } catch (error) {
    await close();
    throw error;
  }
};
