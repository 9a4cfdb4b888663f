import type { IncomingHttpHeaders } from "node:http";
import type { HeaderPrefix } from "../../config/types";
import type { PartyRef } from "../protocol/types";
import { invalid } from "../contract/errors";

/** Routing headers are `OCPI-*` in the published protocol and `ROAMING-*` in our spec: read both (names built once, not per request). */
const namesOf = (name: string): [string, string] => [`ocpi-${name}`, `roaming-${name}`];
const NAMES = {
  from: { country: namesOf("from-country-code"), party: namesOf("from-party-id") },
  to: { country: namesOf("to-country-code"), party: namesOf("to-party-id") },
};

const read = (headers: IncomingHttpHeaders, names: [string, string]): string | undefined => {
  for (const name of names) {
    const value = headers[name];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
};

const party = (headers: IncomingHttpHeaders, side: "from" | "to"): PartyRef | undefined => {
  const country = read(headers, NAMES[side].country);
  const partyId = read(headers, NAMES[side].party);
  if (country === undefined && partyId === undefined) return undefined;
  if (country === undefined || !/^[A-Za-z]{2}$/.test(country))
    throw invalid(`header ${side}-country-code must be 2 letters (ISO 3166-1 alpha-2)`);
  if (partyId === undefined || !/^[A-Za-z0-9]{3}$/.test(partyId))
    throw invalid(`header ${side}-party-id must be 3 alphanumeric characters`);
  return { country_code: country.toUpperCase(), party_id: partyId.toUpperCase() };
};

export const readRoutingHeaders = (headers: IncomingHttpHeaders): { from?: PartyRef; to?: PartyRef } => ({
  from: party(headers, "from"),
  to: party(headers, "to"),
});

/** Header names for a message sent from `from` to `to`, in the partner's prefix. */
export const routingHeaders = (prefix: HeaderPrefix, from?: PartyRef, to?: PartyRef): Record<string, string> => {
  const out: Record<string, string> = {};
  if (from) {
    out[`${prefix}-from-country-code`] = from.country_code;
    out[`${prefix}-from-party-id`] = from.party_id;
  }
  if (to) {
    out[`${prefix}-to-country-code`] = to.country_code;
    out[`${prefix}-to-party-id`] = to.party_id;
  }
  return out;
};
