/**
 * The TMS v1 objects as its API sends them (docs/tms-v1.md, "Objects and
 * their mapping"): timestamps in epoch milliseconds, money in minor units
 * incl. VAT.
 */

export type DeviceState = "pending" | "active" | "inactive";

export interface TmsOperator {
  country: string;
  party: string;
}

export interface TmsSite {
  street: string;
  city: string;
  zip?: string | null;
  region?: string | null;
  country_iso3: string;
  lat: number;
  lon: number;
}

export interface TmsReceipts {
  issuer: "operator" | "terminal";
  base_url: string | null;
}

export interface TmsAssignment {
  sites: string[];
  points: string[];
}

export interface Device {
  serial: string;
  model?: string;
  state: DeviceState;
  merchant_ref: string | null;
  operator: TmsOperator | null;
  site: TmsSite | null;
  receipts: TmsReceipts | null;
  assigned: TmsAssignment | null;
  updated: number;
}

/** What `PUT /v1/devices/{serial}` replaces. */
export type DeviceUpdate = Pick<Device, "merchant_ref" | "operator" | "site" | "receipts" | "assigned">;

export interface ActivationRequest {
  serial?: string;
  merchant_ref?: string;
  operator?: TmsOperator;
  site?: TmsSite;
}

export interface Settlement {
  settlement_id: string;
  auth_ref: string;
  amount_minor: number;
  vat_minor: number;
  vat_rate: number;
  currency: string;
  outcome: "captured" | "partial" | "declined";
  outcome_text: string | null;
  receipt_lines: string[];
  updated: number;
}

export interface TmsPage<T> {
  items: T[];
  next_cursor: string | null;
}

export interface WebhookEvent {
  event: "device.updated" | "settlement.created";
  id: string;
  at: number;
}
