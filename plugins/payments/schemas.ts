import { z } from "zod";
import type { VersionNumber } from "../../core/protocol/types";
import {
  ciString,
  country3,
  countryCode,
  currency,
  dateTime,
  enumeration,
  geoLocation,
  nonEmptyArray,
  partyId,
  price,
  text,
} from "../../core/model/common-schemas";
import { CAPTURE_STATUS_CODES, INVOICE_CREATORS } from "./model";

/**
 * Wire schemas of the payments module (Part A "Terminal",
 * "FinancialAdviceConfirmation"; OCPI 2.3.0 Payments module, whose CiString types
 * are followed). Served in 2.3.0 and, for partners on the 2.2.1
 * direct-payment extension, in 2.2.1: the objects are the same but for
 * the Price of `total_costs`.
 */

type PaymentsVersion = Extract<VersionNumber, "2.3.0" | "2.2.1">;

/** Where a Terminal is read: a whole object, a body whose id the path gives (PUT), or an activation request. */
export type TerminalForm = "object" | "created" | "update" | "activation";

const ids = () => z.array(ciString(36));

const terminalShape = (version: PaymentsVersion, form: TerminalForm) => {
  const activation = form === "activation";
  return {
    // optional in an activation request (the PTP assigns it) and in a PUT (taken from the path), Part A
    terminal_id: form === "object" || form === "created" ? ciString(36) : ciString(36).optional(),
    customer_reference: ciString(36).optional(),
    // "=3 (<=3 in activation request)", Part A
    party_id: (activation ? ciString(3) : partyId()).optional(),
    country_code: (activation ? ciString(2) : countryCode()).optional(),
    address: ciString(45).optional(),
    city: ciString(45).optional(),
    postal_code: ciString(10).optional(),
    state: ciString(20).optional(),
    country: (activation ? ciString(3) : country3()).optional(),
    coordinates: geoLocation(version).optional(),
    // URL: the spec's own PUT example sends "someNewURL" (a relative reference), so only string(255) is checked
    invoice_base_url: text(255).optional(),
    invoice_creator: enumeration(INVOICE_CREATORS).optional(),
    reference: ciString(36).optional(),
    location_ids: ids().optional(),
    evse_uids: ids().optional(),
    // a body may leave it out (the spec's minimal Terminal does): the receiving side stamps the time of receipt
    last_updated: form === "object" ? dateTime() : dateTime().optional(),
  };
};

export const terminalSchema = (version: PaymentsVersion, form: TerminalForm = "object") => z.looseObject(terminalShape(version, form));

/** PATCH body: location_ids and/or evse_uids (Part A "Terminal patch body"); last_updated is not part of it. */
export const terminalAssignmentSchema = () =>
  z
    .looseObject({ location_ids: ids().optional(), evse_uids: ids().optional(), last_updated: dateTime().optional() })
    .refine((body) => body.location_ids !== undefined || body.evse_uids !== undefined, {
      message: "location_ids or evse_uids is required",
      path: ["location_ids"],
    });

export const financialAdviceConfirmationSchema = (version: PaymentsVersion) =>
  z.looseObject({
    id: ciString(36),
    authorization_reference: ciString(36),
    total_costs: price(version),
    currency: currency(),
    eft_data: nonEmptyArray(ciString(255)),
    capture_status_code: enumeration(CAPTURE_STATUS_CODES),
    capture_status_message: ciString(255).optional(),
    last_updated: dateTime(),
  });
