import { ocpiTimestamp, type FinancialAdviceConfirmation, type PartyRef, type Terminal, type TerminalActivation } from "../kit";
import type { ActivationRequest, Device, DeviceUpdate, Settlement, TmsSite } from "./contract";

/**
 * Devices ↔ Terminals and settlements → FACs, field by field as
 * docs/tms-v1.md, "Objects and their mapping", lists them (OCPI 2.3.0
 * Payments, Part A "Terminal", "FinancialAdviceConfirmation").
 */

/** epoch ms → OCPI DateTime (UTC, seconds) */
const at = (ms: number): string => ocpiTimestamp(new Date(ms));

/** GeoLocation strings carry 5-7 decimals (Part A "GeoLocation"). */
const degrees = (value: number): string => value.toFixed(6);

const OUTCOMES = { captured: "SUCCESS", partial: "PARTIAL_SUCCESS", declined: "FAILED" } as const;

export const terminalOf = (device: Device): Terminal => {
  const terminal: Terminal = { terminal_id: device.serial, reference: device.serial, last_updated: at(device.updated) };
  if (device.merchant_ref) terminal.customer_reference = device.merchant_ref;
  if (device.operator) Object.assign(terminal, { country_code: device.operator.country, party_id: device.operator.party });
  if (device.site) {
    const s = device.site;
    Object.assign(terminal, { address: s.street, city: s.city, country: s.country_iso3, coordinates: { latitude: degrees(s.lat), longitude: degrees(s.lon) } });
    if (s.zip) terminal.postal_code = s.zip;
    if (s.region) terminal.state = s.region;
  }
  if (device.receipts) {
    terminal.invoice_creator = device.receipts.issuer === "operator" ? "CPO" : "PTP";
    if (device.receipts.base_url) terminal.invoice_base_url = device.receipts.base_url;
  }
  terminal.location_ids = device.assigned?.sites ?? [];
  if (device.assigned?.points.length) terminal.evse_uids = device.assigned.points;
  return terminal;
};

/** A Terminal's address as a site; undefined when it names none (a site needs street, city, country and coordinates). */
const siteOf = (t: Partial<Terminal>): TmsSite | undefined => {
  if (!t.address || !t.city || !t.country || !t.coordinates) return undefined;
  const site: TmsSite = { street: t.address, city: t.city, country_iso3: t.country, lat: Number(t.coordinates.latitude), lon: Number(t.coordinates.longitude) };
  site.zip = t.postal_code ?? null;
  site.region = t.state ?? null;
  return site;
};

const operatorOf = (t: Partial<Terminal>): { country: string; party: string } | undefined =>
  t.country_code && t.party_id ? { country: t.country_code.toUpperCase(), party: t.party_id.toUpperCase() } : undefined;

/** What a PUT replaces, from the whole Terminal the plugin merged (plugins/payments/sender.ts). */
export const deviceUpdateOf = (t: Terminal): DeviceUpdate => ({
  merchant_ref: t.customer_reference ?? null,
  operator: operatorOf(t) ?? null,
  site: siteOf(t) ?? null,
  receipts: t.invoice_creator || t.invoice_base_url ? { issuer: t.invoice_creator === "PTP" ? "terminal" : "operator", base_url: t.invoice_base_url ?? null } : null,
  assigned: { sites: t.location_ids ?? [], points: t.evse_uids ?? [] },
});

export const activationOf = (request: TerminalActivation): ActivationRequest => {
  const activation: ActivationRequest = {};
  if (request.terminal_id) activation.serial = request.terminal_id;
  if (request.customer_reference) activation.merchant_ref = request.customer_reference;
  const operator = operatorOf(request);
  if (operator) activation.operator = operator;
  const site = siteOf(request);
  if (site) activation.site = site;
  return activation;
};

export const operatorIs = (device: Device, party: PartyRef): boolean =>
  device.operator !== null && device.operator.country.toUpperCase() === party.country_code.toUpperCase() && device.operator.party.toUpperCase() === party.party_id.toUpperCase();

/**
 * Digits after the decimal point of a currency's minor unit (ISO 4217,
 * "minor unit" column): the currencies whose minor unit is not two
 * decimals. Every other code the system can send has two.
 */
const MINOR_UNIT_DIGITS: Readonly<Record<string, number>> = {
  // no minor unit
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  // thousandths
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  // ten-thousandths (units of account)
  CLF: 4, UYW: 4,
};

/** Minor units of `currency` → an amount in the currency (OCPI Price values are in the currency, Part A "Price"). */
export const majorUnits = (minor: number, currency: string): number => minor / 10 ** (MINOR_UNIT_DIGITS[currency.toUpperCase()] ?? 2);

/**
 * Minor units incl. VAT (ISO 4217 minor unit of `currency`: majorUnits) → a
 * 2.3.0 Price: before_taxes = amount − VAT, one VAT tax with its rate.
 * 2.2.1 partners get excl_vat/incl_vat from it (plugins/payments/translate.ts).
 */
export const facOf = (s: Settlement): FinancialAdviceConfirmation => {
  const fac: FinancialAdviceConfirmation = {
    id: s.settlement_id,
    authorization_reference: s.auth_ref,
    total_costs: {
      before_taxes: majorUnits(s.amount_minor - s.vat_minor, s.currency),
      taxes: [{ name: "VAT", percentage: s.vat_rate, amount: majorUnits(s.vat_minor, s.currency) }],
    },
    currency: s.currency,
    eft_data: s.receipt_lines,
    capture_status_code: OUTCOMES[s.outcome],
    last_updated: at(s.updated),
  };
  if (s.outcome_text) fac.capture_status_message = s.outcome_text;
  return fac;
};

/**
 * The Terminal field a field of our write requests came from (the tables
 * of "Terminal → device" in docs/tms-v1.md, read backwards), as a JSON
 * pointer segment: a refusal naming `site.zip` is the partner's
 * `/postal_code`. The assignment call's body is `{ sites, points }`, the
 * PUT's carries them under `assigned`.
 */
const TERMINAL_FIELDS: Readonly<Record<string, string>> = {
  serial: "terminal_id",
  merchant_ref: "customer_reference",
  operator: "country_code",
  "operator.country": "country_code",
  "operator.party": "party_id",
  site: "address",
  "site.street": "address",
  "site.city": "city",
  "site.zip": "postal_code",
  "site.region": "state",
  "site.country_iso3": "country",
  "site.lat": "coordinates/latitude",
  "site.lon": "coordinates/longitude",
  receipts: "invoice_creator",
  "receipts.issuer": "invoice_creator",
  "receipts.base_url": "invoice_base_url",
  "assigned.sites": "location_ids",
  "assigned.points": "evse_uids",
  sites: "location_ids",
  points: "evse_uids",
};

/**
 * The Terminal field (a JSON pointer without its leading slash, e.g.
 * `location_ids/2`) that a field of our request names; undefined for one
 * no Terminal field gives. Dotted paths, JSON pointers and `[n]` indices
 * are all read.
 */
export const terminalFieldOf = (requestField: string): string | undefined => {
  const segments = requestField.replace(/\[(\d+)\]/g, ".$1").split(/[./]/).filter(Boolean);
  for (let n = segments.length; n > 0; n--) {
    const field = TERMINAL_FIELDS[segments.slice(0, n).join(".")];
    const rest = segments.slice(n);
    if (field !== undefined && rest.every((s) => /^\d+$/.test(s))) return [field, ...rest].join("/");
  }
  return undefined;
};
