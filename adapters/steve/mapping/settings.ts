import type { GeoLocation } from "../../kit";

/**
 * What SteVe does not know and the operator's YAML (`adapters.steve.locations`)
 * supplies (docs/steve.md, "What the YAML supplies"). Validation of these settings belongs
 * to the config schema; the mapping takes them as given.
 */

/** Connector attributes used where SteVe has none (before 3.13, or plugs never filled in). */
export interface ConnectorDefaults {
  standard: string;
  format: "SOCKET" | "CABLE";
  power_type: string;
  max_voltage: number;
  max_amperage: number;
  max_electric_power?: number;
}

/** Static Location fields the YAML may set globally, per location group or per charge box. */
export interface LocationOverrides {
  name?: string;
  address?: string;
  city?: string;
  postal_code?: string;
  state?: string;
  /** alpha-2 or alpha-3 */
  country?: string;
  coordinates?: GeoLocation;
  time_zone?: string;
  parking_type?: string;
  facilities?: string[];
  opening_times?: Record<string, unknown>;
  charging_when_closed?: boolean;
  operator?: Record<string, unknown>;
  suboperator?: Record<string, unknown>;
  owner?: Record<string, unknown>;
  help_phone?: string;
  tariff_ids?: string[];
}

export interface LocationGroup extends LocationOverrides {
  id: string;
  charge_boxes: string[];
}

export interface StatusPolicy {
  /** OCPP Preparing: many CPOs show AVAILABLE until charging starts */
  preparing: "AVAILABLE" | "BLOCKED";
  finishing: "CHARGING" | "BLOCKED";
  /** a station silent for longer is UNKNOWN; absent: never */
  heartbeat_stale_after_seconds?: number;
}

export interface SteveMappingSettings extends LocationOverrides {
  /** our CPO party */
  country_code: string;
  party_id: string;
  currency: string;
  publish: boolean;
  /** the default time zone: used when neither a group or charge box nor the address (SteVe 3.14.1+) has one */
  time_zone: string;
  /** eMI3 EVSE id when SteVe has no evse_id_external: {cc} {party} {charge_box} {evse} */
  evse_id_pattern: string;
  /** EVSE capabilities; RESERVABLE is added for stations speaking OCPP 1.5+ */
  capabilities: string[];
  connector_defaults: ConnectorDefaults;
  status: StatusPolicy;
  locations: LocationGroup[];
  charge_boxes: Record<string, LocationOverrides>;
}

export const DEFAULT_EVSE_ID_PATTERN = "{cc}*{party}*E{charge_box}*{evse}";
