/** The parties and off-spec objects of the tolerant reader test (test/e2e/tolerant-reader.test.ts), as the hub sent them. */
import "reflect-metadata";
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
