/**
 * Canonical (OCPI 2.3.0) objects of the payments module (Part A "Terminal",
 * "FinancialAdviceConfirmation"; OCPI 2.3.0 Payments module). The data owner is the
 * payment-terminal provider (PTP). 2.2.1 partners on the direct-payment
 * extension get the same objects with a 2.2.1 Price (translate.ts).
 */
import type { Price } from "../../core/model/price";

export const INVOICE_CREATORS = ["CPO", "PTP"] as const;
export type InvoiceCreator = (typeof INVOICE_CREATORS)[number];

export const CAPTURE_STATUS_CODES = ["SUCCESS", "PARTIAL_SUCCESS", "FAILED"] as const;
export type CaptureStatusCode = (typeof CAPTURE_STATUS_CODES)[number];

export interface TerminalCoordinates {
  latitude: string;
  longitude: string;
}

/** The fields of a Terminal (Part A), without the extensibility of the object. */
export interface TerminalFields {
  terminal_id: string;
  customer_reference?: string;
  /** the CPO the terminal serves (an alternative to customer_reference), not the PTP */
  party_id?: string;
  country_code?: string;
  address?: string;
  city?: string;
  postal_code?: string;
  state?: string;
  country?: string;
  coordinates?: TerminalCoordinates;
  invoice_base_url?: string;
  invoice_creator?: InvoiceCreator;
  reference?: string;
  location_ids?: string[];
  evse_uids?: string[];
  last_updated: string;
}

export interface Terminal extends TerminalFields {
  /** 2.3.0 extensibility: unknown properties are kept */
  [extra: string]: unknown;
}

/** The body of `POST {terminals}/activate`: a Terminal whose `terminal_id` the PTP may choose (Part A). */
export interface TerminalActivation extends Partial<TerminalFields> {
  [extra: string]: unknown;
}

/** The body of `PATCH {terminals}/{terminal_id}`: what is assigned, added to the current assignment (a union). */
export interface TerminalAssignment {
  location_ids?: string[];
  evse_uids?: string[];
  last_updated?: string;
  [extra: string]: unknown;
}

export interface FinancialAdviceConfirmation {
  id: string;
  /** the authorization_reference of the StartSession command, and so of the Session and CDR it paid for */
  authorization_reference: string;
  /** captured amount, consumer price incl. VAT */
  total_costs: Price;
  currency: string;
  eft_data: string[];
  capture_status_code: CaptureStatusCode;
  capture_status_message?: string;
  last_updated: string;
  [extra: string]: unknown;
}

/** The sub-resources below the one `payments` endpoint URL (OCPI 2.3.0 Payments module: implementations append them). */
export const TERMINALS = "terminals";
export const FACS = "financial-advice-confirmations";
export type PaymentsResource = typeof TERMINALS | typeof FACS;
