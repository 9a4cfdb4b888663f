import { sameCiString } from "../../core/model/common-schemas";
/**
 * Canonical (OCPI 2.3.0) Location, EVSE and Connector. Every stored or
 * served object has this shape; 2.2.1 and 2.1.1 are translated at the edge
 * (translate.ts). Objects are open: unknown properties are kept.
 */

export interface GeoLocation {
  latitude: string;
  longitude: string;
  [extra: string]: unknown;
}

export interface DisplayText {
  language: string;
  text: string;
}

export interface Connector {
  id: string;
  standard: string;
  format: "SOCKET" | "CABLE";
  power_type: string;
  max_voltage: number;
  max_amperage: number;
  max_electric_power?: number;
  tariff_ids?: string[];
  terms_and_conditions?: string;
  /** 2.3.0 only */
  capabilities?: string[];
  last_updated: string;
  [extra: string]: unknown;
}

export interface StatusSchedule {
  period_begin: string;
  period_end?: string;
  status: string;
}

export interface EvseParking {
  parking_id: string;
  evse_position?: "LEFT" | "RIGHT" | "CENTER";
}

export interface Evse {
  uid: string;
  evse_id?: string;
  status: string;
  status_schedule?: StatusSchedule[];
  capabilities?: string[];
  connectors: Connector[];
  floor_level?: string;
  coordinates?: GeoLocation;
  physical_reference?: string;
  directions?: DisplayText[];
  parking_restrictions?: string[];
  /** 2.3.0 only */
  parking?: EvseParking[];
  /** 2.3.0 only */
  accepted_service_providers?: string[];
  images?: Record<string, unknown>[];
  last_updated: string;
  [extra: string]: unknown;
}

export interface EnergyMix {
  is_green_energy: boolean;
  energy_sources?: { source: string; percentage: number }[];
  environ_impact?: { category: string; amount: number }[];
  supplier_name?: string;
  energy_product_name?: string;
  [extra: string]: unknown;
}

export interface Location {
  country_code: string;
  party_id: string;
  id: string;
  publish: boolean;
  publish_allowed_to?: Record<string, unknown>[];
  name?: string;
  address: string;
  city: string;
  postal_code?: string;
  state?: string;
  country: string;
  coordinates: GeoLocation;
  related_locations?: Record<string, unknown>[];
  parking_type?: string;
  evses?: Evse[];
  /** 2.3.0 only */
  parking_places?: Record<string, unknown>[];
  directions?: DisplayText[];
  operator?: Record<string, unknown>;
  suboperator?: Record<string, unknown>;
  owner?: Record<string, unknown>;
  facilities?: string[];
  time_zone: string;
  opening_times?: Record<string, unknown>;
  charging_when_closed?: boolean;
  images?: Record<string, unknown>[];
  energy_mix?: EnergyMix;
  /** 2.3.0 only */
  help_phone?: string;
  last_updated: string;
  [extra: string]: unknown;
}

/** CiString identifiers compare case-insensitively (OCPI 2.2.1 Types, §7 item 7). */
export const sameId = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && sameCiString(a, b);
