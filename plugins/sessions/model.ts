import type { Price } from "../../core/model/price";
import type { ChargingPeriod } from "../../core/model/charging";

/** Canonical (OCPI 2.3.0) Sessions module objects; other versions are translated at the edge (translate.ts). */

export const SESSION_STATUSES = ["ACTIVE", "COMPLETED", "INVALID", "PENDING", "RESERVATION"] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export type AuthMethod = "AUTH_REQUEST" | "COMMAND" | "WHITELIST";

export interface CdrToken {
  /** the eMSP owning the token */
  country_code: string;
  party_id: string;
  uid: string;
  /** OpenEnum in 2.3.0 */
  type: string;
  contract_id: string;
  [extra: string]: unknown;
}

export type { CdrDimension, ChargingPeriod } from "../../core/model/charging";

export interface Session {
  /** the CPO owning the session */
  country_code: string;
  party_id: string;
  id: string;
  start_date_time: string;
  end_date_time?: string;
  kwh: number;
  cdr_token: CdrToken;
  auth_method: AuthMethod;
  authorization_reference?: string;
  location_id: string;
  evse_uid: string;
  connector_id: string;
  meter_id?: string;
  currency: string;
  charging_periods?: ChargingPeriod[];
  total_cost?: Price;
  status: SessionStatus;
  last_updated: string;
  /** 2.3.0 extensibility: unknown properties are kept and passed through */
  [extra: string]: unknown;
}

/** A PATCH fragment: any subset of the fields; `last_updated` is required on the wire in 2.2+. */
export type SessionPatch = Partial<Session>;

export const PROFILE_TYPES = ["CHEAP", "FAST", "GREEN", "REGULAR"] as const;
export type ProfileType = (typeof PROFILE_TYPES)[number];

/** Body of PUT {sessions}/{session_id}/charging_preferences (2.2+). */
export interface ChargingPreferences {
  profile_type: ProfileType;
  departure_time?: string;
  /** kWh requested */
  energy_need?: number;
  /** default false */
  discharge_allowed?: boolean;
  [extra: string]: unknown;
}

export const CHARGING_PREFERENCES_RESPONSES = [
  "ACCEPTED",
  "DEPARTURE_REQUIRED",
  "ENERGY_NEED_REQUIRED",
  "NOT_POSSIBLE",
  "PROFILE_TYPE_NOT_SUPPORTED",
] as const;
export type ChargingPreferencesResponse = (typeof CHARGING_PREFERENCES_RESPONSES)[number];

/**
 * Where a session received in OCPI 2.1.1 keeps the partner's full 2.1.1
 * `location` object: the canonical model has only location_id/evse_uid/
 * connector_id, from which no valid 2.1.1 Location can be rebuilt, so a
 * 2.1.1 GET returns this original instead (translate.ts). Internal to the
 * gateway: never shown to 2.2.1/2.3.0 partners and never taken from them.
 */
export const LOCATION_211 = "ocpi211_location";

/**
 * Where one of our own sessions carries its Location, as our Locations
 * module serves it (canonical, reduced to the session's EVSE and connector:
 * session-location.ts), on its way to a partner: a 2.1.1 Session embeds
 * that Location (OCPI 2.1.1 Sessions module, Session object: "the Location
 * object ... only the EVSE and Connector used"), which location_id,
 * evse_uid and connector_id alone cannot rebuild. Attached where our
 * sessions leave the gateway (our Sender list, pushes, resyncs), so a
 * queued push or a cached list carries it, and read by the 2.1.1
 * translation (translate.ts); internal like LOCATION_211: never stored with
 * the session, never shown to 2.2.1/2.3.0 partners, never taken from them.
 */
export const OWN_LOCATION = "ocpi_own_location";
