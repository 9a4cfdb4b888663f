import type { Price } from "../../core/model/price";
import type { ChargingPeriod } from "../../core/model/charging";

/**
 * Canonical (OCPI 2.3.0) CDR types. Every other version is translated to and
 * from these at the edge (translate.ts). Objects stay open: unknown
 * properties are kept and passed through (2.3.0 extensibility).
 */

export interface CdrToken {
  /**
   * Required in 2.2.1+; may be absent on a CDR that arrived in 2.1.1 or from a
   * 2.2.1 partner following the 2.2.1 tag's own example (which omits them):
   * the token owner is not invented.
   */
  country_code?: string;
  party_id?: string;
  uid: string;
  type: string;
  contract_id: string;
  [extra: string]: unknown;
}

export interface CdrLocation {
  id: string;
  name?: string;
  address: string;
  city: string;
  postal_code?: string;
  state?: string;
  country: string;
  coordinates: { latitude: string; longitude: string; [extra: string]: unknown };
  evse_uid: string;
  evse_id: string;
  connector_id: string;
  connector_standard: string;
  connector_format: string;
  connector_power_type: string;
  [extra: string]: unknown;
}

export type { CdrDimension, ChargingPeriod } from "../../core/model/charging";

export interface SignedValue {
  nature: string;
  plain_data: string;
  signed_data: string;
  [extra: string]: unknown;
}

export interface SignedData {
  encoding_method: string;
  encoding_method_version?: number;
  public_key?: string;
  signed_values: SignedValue[];
  url?: string;
  [extra: string]: unknown;
}

/** 2.3.0 PriceLimit (Tariff min_price / max_price). */
export interface PriceLimit {
  before_taxes: number;
  after_taxes?: number;
  [extra: string]: unknown;
}

/**
 * A Tariff as embedded in a CDR (the tariff as it was at session start).
 * Kept deliberately loose: the tariffs module owns the full Tariff rules.
 */
export interface CdrTariff {
  country_code?: string;
  party_id?: string;
  id: string;
  currency: string;
  min_price?: PriceLimit;
  max_price?: PriceLimit;
  tax_included?: string;
  elements: Record<string, unknown>[];
  last_updated: string;
  [extra: string]: unknown;
}

export interface Cdr {
  country_code: string;
  party_id: string;
  /** <=36 for a normal CDR, <=39 for a credit CDR (original id + suffix) */
  id: string;
  start_date_time: string;
  end_date_time: string;
  session_id?: string;
  booking_id?: string;
  cdr_token: CdrToken;
  auth_method: string;
  authorization_reference?: string;
  cdr_location: CdrLocation;
  meter_id?: string;
  currency: string;
  tariffs?: CdrTariff[];
  charging_periods: ChargingPeriod[];
  signed_data?: SignedData;
  total_cost: Price;
  total_fixed_cost?: Price;
  total_energy: number;
  total_energy_cost?: Price;
  total_time: number;
  total_time_cost?: Price;
  total_parking_time?: number;
  total_parking_cost?: Price;
  total_reservation_cost?: Price;
  remark?: string;
  invoice_reference_id?: string;
  credit?: boolean;
  credit_reference_id?: string;
  home_charging_compensation?: boolean;
  last_updated: string;
  [extra: string]: unknown;
}

/** The Price fields of a CDR, translated between Price shapes per version. */
export const CDR_PRICE_FIELDS = [
  "total_cost",
  "total_fixed_cost",
  "total_energy_cost",
  "total_time_cost",
  "total_parking_cost",
  "total_reservation_cost",
] as const;

/**
 * Where a CDR received in 2.1.1 keeps its original 2.1.1 `location` (a full
 * Location): a CdrLocation holds only one EVSE and connector and lacks the
 * Location's type, statuses, voltages…, so the original is preserved as an
 * extension property and served back verbatim to 2.1.1 partners.
 */
export const LOCATION_211_KEY = "location_2_1_1";
