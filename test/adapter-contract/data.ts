import type { PartyRef } from "../../adapters/kit";
import type { ContractData } from "./fixture";

type Json = Record<string, any>;

/** The eMSP the suite's partner acts for: Sessions and CDRs with its tokens are in the partner's scope. */
export const IN_SCOPE: PartyRef = { country_code: "DE", party_id: "EMS" };
/** Another eMSP: its drivers' Sessions and CDRs are not the partner's to see. */
export const OUT_OF_SCOPE: PartyRef = { country_code: "DE", party_id: "OTH" };
/** The CPO party the suite's partner also acts for: it pushes Locations, Sessions, CDRs and Tariffs to Receiver ports. */
export const PARTNER_CPO: PartyRef = { country_code: "NL", party_id: "TNM" };

/** `n` minutes after 2025-03-01T00:00:00Z: DateTimes that sort as their numbers do. */
export const minute = (n: number): string => new Date(Date.UTC(2025, 2, 1) + n * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");

export const connector = (id: string, stamp: string): Json => ({
  id,
  standard: "IEC_62196_T2",
  format: "SOCKET",
  power_type: "AC_3_PHASE",
  max_voltage: 230,
  max_amperage: 32,
  last_updated: stamp,
});

export const location = (owner: PartyRef, id: string, stamp: string, publish = true): Json => ({
  ...owner,
  id,
  publish,
  name: `Station ${id}`,
  address: `Main street ${id}`,
  city: "Utrecht",
  postal_code: "3511 AA",
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  time_zone: "Europe/Amsterdam",
  evses: [
    {
      uid: `${id}-E1`,
      evse_id: `NL*GWY*E${id.replace(/[^A-Za-z0-9]/g, "")}1`,
      status: "AVAILABLE",
      capabilities: ["REMOTE_START_STOP_CAPABLE"],
      connectors: [connector("1", stamp)],
      last_updated: stamp,
    },
  ],
  last_updated: stamp,
});

const cdrToken = (emsp: PartyRef, uid: string): Json => ({ ...emsp, uid, type: "RFID", contract_id: `${emsp.country_code}-${emsp.party_id}-C${uid}` });

export const session = (owner: PartyRef, id: string, emsp: PartyRef, stamp: string, locationId = "LOC-01"): Json => ({
  ...owner,
  id,
  start_date_time: stamp,
  kwh: 2.5,
  cdr_token: cdrToken(emsp, `U${id.replace(/[^A-Za-z0-9]/g, "")}`),
  auth_method: "WHITELIST",
  location_id: locationId,
  evse_uid: `${locationId}-E1`,
  connector_id: "1",
  currency: "EUR",
  status: "ACTIVE",
  last_updated: stamp,
});

export const cdr = (owner: PartyRef, id: string, emsp: PartyRef, stamp: string): Json => ({
  ...owner,
  id,
  start_date_time: minute(0),
  end_date_time: stamp,
  cdr_token: cdrToken(emsp, `U${id.replace(/[^A-Za-z0-9]/g, "")}`),
  auth_method: "WHITELIST",
  cdr_location: {
    id: "LOC-01",
    address: "Main street LOC-01",
    city: "Utrecht",
    country: "NLD",
    coordinates: { latitude: "52.090730", longitude: "5.121420" },
    evse_uid: "LOC-01-E1",
    evse_id: "NL*GWY*ELOC011",
    connector_id: "1",
    connector_standard: "IEC_62196_T2",
    connector_format: "SOCKET",
    connector_power_type: "AC_3_PHASE",
  },
  currency: "EUR",
  charging_periods: [{ start_date_time: minute(0), dimensions: [{ type: "ENERGY", volume: 5 }] }],
  total_cost: { before_taxes: 1.5 },
  total_energy: 5,
  total_time: 1,
  last_updated: stamp,
});

export const tariff = (owner: PartyRef, id: string, stamp: string): Json => ({
  ...owner,
  id,
  currency: "EUR",
  type: "REGULAR",
  elements: [{ price_components: [{ type: "ENERGY", price: 0.3, vat: 21, step_size: 1 }] }],
  tax_included: "NO",
  last_updated: stamp,
});

export const token = (owner: PartyRef, uid: string, stamp: string): Json => ({
  ...owner,
  uid,
  type: "RFID",
  contract_id: `${owner.country_code}-${owner.party_id}-C${uid.replace(/[^A-Za-z0-9]/g, "")}`,
  issuer: "Contract test eMSP",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: stamp,
});

/**
 * The suite's data. Every list has two objects with the same last_updated
 * (a page boundary can fall between them: pages must still be stable), one
 * Location is unpublished, and Sessions and CDRs belong to two eMSPs.
 */
export const contractData = (ours: PartyRef): ContractData => ({
  locations: [
    location(ours, "LOC-01", minute(10)),
    location(ours, "LOC-02", minute(20)),
    location(ours, "LOC-03", minute(30)),
    location(ours, "LOC-04", minute(30)),
    location(ours, "HIDDEN", minute(35), false),
    location(ours, "LOC-05", minute(40)),
    location(ours, "LOC-06", minute(50)),
  ].map((l) => (l.publish ? l : { ...l, publish_allowed_to: [{ visual_number: "123", issuer: "X" }] })),
  sessions: [
    session(ours, "SES-01", IN_SCOPE, minute(10)),
    session(ours, "SES-02", OUT_OF_SCOPE, minute(15)),
    session(ours, "SES-03", IN_SCOPE, minute(20)),
    session(ours, "SES-04", IN_SCOPE, minute(20)),
    session(ours, "SES-05", OUT_OF_SCOPE, minute(25)),
    session(ours, "SES-06", IN_SCOPE, minute(30)),
  ],
  cdrs: [
    cdr(ours, "CDR-01", IN_SCOPE, minute(10)),
    cdr(ours, "CDR-02", IN_SCOPE, minute(20)),
    cdr(ours, "CDR-03", OUT_OF_SCOPE, minute(20)),
    cdr(ours, "CDR-04", IN_SCOPE, minute(20)),
    cdr(ours, "CDR-05", IN_SCOPE, minute(40)),
  ],
  tariffs: [tariff(ours, "TAR-01", minute(10)), tariff(ours, "TAR-02", minute(20)), tariff(ours, "TAR-03", minute(20)), tariff(ours, "TAR-04", minute(30))],
  tokens: [token(ours, "TOK-01", minute(10)), token(ours, "TOK-02", minute(10)), token(ours, "TOK-03", minute(20)), token(ours, "TOK-04", minute(30))],
});
