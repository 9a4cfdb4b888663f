import type { Role } from "../protocol/types";
import { Status } from "../protocol/status";
import { OcpiError } from "../contract/errors";

/** What the hub's forwarding, result relay and merged lists share: hub errors, roles and token encodings (bodies: core/http/json-body.ts). */

/** The HTTP status of each hub error (README "Hubs and forwarding"). */
const HUB_HTTP_STATUS: Record<number, number> = {
  [Status.HUB_ERROR]: 502,
  [Status.HUB_UNKNOWN_RECEIVER]: 404,
  [Status.HUB_TIMEOUT]: 504,
  [Status.HUB_CONNECTION_PROBLEM]: 502,
};
export const hubError = (code: number, message: string): OcpiError => new OcpiError(code, message, HUB_HTTP_STATUS[code] ?? 502);

/**
 * Whether data of a party of role `from` goes to a party of role `to`
 * (OCPI 2.2.1 Transport and format, Message routing, broadcast push): a CPO's to eMSPs, NSPs, NAPs and
 * OTHER; theirs to CPOs. Also whose lists a GET-all through the hub merges.
 */
export const opposite = (from: Role | undefined, to: Role): boolean => {
  switch (from) {
    case "CPO":
      return to === "EMSP" || to === "NSP" || to === "OTHER" || to === "NAP";
    case "EMSP":
    case "OTHER":
    case "NSP":
      return to === "CPO";
    default:
      return false;
  }
};

