import type { PartyRef } from "../../core/protocol/types";

/**
 * The 2.3.0 Sessions and CDRs the tests post, push and pull. They all charge
 * at one IEC 62196 T2 socket (AC, 3 phases) in Utrecht and differ only in what
 * a test tells apart: owner, ids, times, energy, cost, token and the
 * Location/EVSE/connector; those are the options, everything else is fixed.
 */

type Json = Record<string, any>;

/** Connector `id`: an IEC 62196 T2 socket, 230 V and 32 A on 3 phases. */
export const t2Connector = (id: string, lastUpdated: string) => ({
  id,
  standard: "IEC_62196_T2",
  format: "SOCKET",
  power_type: "AC_3_PHASE",
  max_voltage: 230,
  max_amperage: 32,
  last_updated: lastUpdated,
});

/** The address of station `n`, in Utrecht. */
export const stationAddress = (n: number) => ({
  address: `Main street ${n}`,
  city: "Utrecht",
  postal_code: "3511 AA",
  country: "NLD",
  // 6 decimals: valid coordinates in every version (2.1.1 wants exactly 6)
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
});

/** Name and address of station `n`: what the tests' numbered Locations share besides owner and id. */
export const numberedStation = (n: number) => ({ name: `Station ${n}`, ...stationAddress(n) });

/** Location `LOC<n>` of NL/CPO with one available EVSE `EVSE<n>`, all stamped on 2024-03-0<n> (n < 10). */
export const numberedCpoLocation = (n: number) => {
  const stamp = `2024-03-0${n}T10:00:00Z`;
  return {
    country_code: "NL",
    party_id: "CPO",
    id: `LOC${n}`,
    publish: true,
    ...numberedStation(n),
    coordinates: { latitude: "52.090730", longitude: "5.121420" },
    evses: [{ uid: `EVSE${n}`, evse_id: `NL*CPO*E${n}`, status: "AVAILABLE", connectors: [t2Connector("1", stamp)], last_updated: stamp }],
    time_zone: "Europe/Amsterdam",
    last_updated: stamp,
  };
};

/** Where a Session or CDR took place. */
export interface ChargingPlace {
  locationId: string;
  evseUid: string;
  evseId: string;
  connectorId: string;
  address: string;
  /** left out unless given: 2.3.0 does not require it */
  postalCode?: string;
}

/** LOC1, EVSE1, connector 1 of NL/CPO: the place of charge-point.ts's `location`. */
export const LOC1_EVSE1: ChargingPlace = { locationId: "LOC1", evseUid: "EVSE1", evseId: "NL*CPO*E1", connectorId: "1", address: "Main street 1" };

/** The eMSP DE/EMS's RFID card the CPO's sessions are charged with. */
export const EMS_CDR_TOKEN = { country_code: "DE", party_id: "EMS", uid: "A1B2C3D4", type: "RFID", contract_id: "DE-EMS-CA1B2C3D4" };

export const cdrLocation = (place: ChargingPlace): Json => ({
  id: place.locationId,
  address: place.address,
  city: "Utrecht",
  ...(place.postalCode === undefined ? {} : { postal_code: place.postalCode }),
  country: "NLD",
  coordinates: { latitude: "52.090730", longitude: "5.121420" },
  evse_uid: place.evseUid,
  evse_id: place.evseId,
  connector_id: place.connectorId,
  connector_standard: "IEC_62196_T2",
  connector_format: "SOCKET",
  connector_power_type: "AC_3_PHASE",
});

/** A CDR of `kwh` charged from `start` to `end` in one period, costing `cost` before taxes; last updated at `end` unless given. */
export const cdrOf = (o: {
  owner: PartyRef;
  id: string;
  start: string;
  end: string;
  lastUpdated?: string;
  kwh: number;
  cost: number;
  token?: Json;
  place?: ChargingPlace;
}): Json => ({
  ...o.owner,
  id: o.id,
  start_date_time: o.start,
  end_date_time: o.end,
  cdr_token: o.token ?? EMS_CDR_TOKEN,
  auth_method: "WHITELIST",
  cdr_location: cdrLocation(o.place ?? LOC1_EVSE1),
  currency: "EUR",
  charging_periods: [{ start_date_time: o.start, dimensions: [{ type: "ENERGY", volume: o.kwh }] }],
  total_cost: { before_taxes: o.cost },
  total_energy: o.kwh,
  total_time: 1,
  last_updated: o.lastUpdated ?? o.end,
});

/** A Session started at `start`, `kwh` so far; last updated at `start` unless given. */
export const sessionOf = (o: {
  owner: PartyRef;
  id: string;
  status: string;
  start: string;
  lastUpdated?: string;
  kwh: number;
  token?: Json;
  authMethod?: string;
  place?: ChargingPlace;
}): Json => {
  const place = o.place ?? LOC1_EVSE1;
  return {
    ...o.owner,
    id: o.id,
    start_date_time: o.start,
    kwh: o.kwh,
    cdr_token: o.token ?? EMS_CDR_TOKEN,
    auth_method: o.authMethod ?? "WHITELIST",
    location_id: place.locationId,
    evse_uid: place.evseUid,
    connector_id: place.connectorId,
    currency: "EUR",
    status: o.status,
    last_updated: o.lastUpdated ?? o.start,
  };
};

/* ---------------------------------------------------------------- a numbered series (push and dead-letter tests) */

/** `n` seconds after 2025-01-01T00:00:00Z: DateTimes that sort as their numbers do. */
export const stamp = (n: number): string => new Date(Date.UTC(2025, 0, 1) + n * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

const NL_CPO: PartyRef = { country_code: "NL", party_id: "CPO" };
/** EVSE 1 of push.test.ts's `location("LOC1", …)`, whose EVSEs are `<id>-E<n>` in `<id> street 1` */
const LOC1_E1: ChargingPlace = { locationId: "LOC1", evseUid: "LOC1-E1", evseId: "NL*CPO*E1", connectorId: "1", address: "LOC1 street 1" };

/** CDR-000n of NL/CPO: times, energy and cost grow with `n`, so each CDR of a series is told apart by content, not only by id. */
export const numberedCdr = (n: number): Json =>
  cdrOf({
    owner: NL_CPO,
    id: `CDR-${String(n).padStart(4, "0")}`,
    start: stamp(n * 100),
    end: stamp(n * 100 + 60),
    lastUpdated: stamp(n * 100 + 61),
    kwh: 5 + n,
    cost: 2 + n / 10,
    place: LOC1_E1,
  });

/** Session `id` of NL/CPO at LOC1-E1, started at `stamp(at)` and last updated a second later. */
export const sessionAt = (id: string, status: string, at: number): Json =>
  sessionOf({ owner: NL_CPO, id, status, start: stamp(at), lastUpdated: stamp(at + 1), kwh: 3, place: LOC1_E1 });
