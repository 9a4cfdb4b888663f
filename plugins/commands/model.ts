import type { Token } from "../tokens/model";

/**
 * Canonical (OCPI 2.3.0) Commands model (OCPI 2.2.1 Commands module). Other versions are
 * translated to and from it in translate.ts. Requests keep unknown
 * properties (2.3.0 extensibility), hence the index signatures.
 */

export const COMMAND_TYPES = ["CANCEL_RESERVATION", "RESERVE_NOW", "START_SESSION", "STOP_SESSION", "UNLOCK_CONNECTOR"] as const;
export type CommandType = (typeof COMMAND_TYPES)[number];

/** The synchronous answer (2.2+); 2.1.1 adds TIMEOUT, which the canonical model does not have. */
export const COMMAND_RESPONSE_TYPES = ["ACCEPTED", "NOT_SUPPORTED", "REJECTED", "UNKNOWN_SESSION"] as const;
export type CommandResponseType = (typeof COMMAND_RESPONSE_TYPES)[number];
export const COMMAND_RESPONSE_TYPES_211 = [...COMMAND_RESPONSE_TYPES, "TIMEOUT"] as const;

/** The asynchronous result, from the charge point (or TIMEOUT from the gateway). */
export const COMMAND_RESULT_TYPES = [
  "ACCEPTED",
  "CANCELED_RESERVATION",
  "EVSE_OCCUPIED",
  "EVSE_INOPERATIVE",
  "FAILED",
  "NOT_SUPPORTED",
  "REJECTED",
  "TIMEOUT",
  "UNKNOWN_RESERVATION",
] as const;
export type CommandResultType = (typeof COMMAND_RESULT_TYPES)[number];

export interface DisplayText {
  language: string;
  text: string;
}

interface WithResponseUrl {
  /** where the CommandResult goes; chosen by the sender of the command */
  response_url: string;
  [extra: string]: unknown;
}

export interface StartSession extends WithResponseUrl {
  token: Token;
  location_id: string;
  evse_uid?: string;
  /** 2.2+; required when the EVSE has the capability START_SESSION_CONNECTOR_REQUIRED */
  connector_id?: string;
  authorization_reference?: string;
}

export interface StopSession extends WithResponseUrl {
  session_id: string;
}

export interface ReserveNow extends WithResponseUrl {
  token: Token;
  expiry_date: string;
  /** a string in 2.2+, an integer in 2.1.1 */
  reservation_id: string;
  location_id: string;
  evse_uid?: string;
  authorization_reference?: string;
}

/** 2.2+ */
export interface CancelReservation extends WithResponseUrl {
  reservation_id: string;
}

export interface UnlockConnector extends WithResponseUrl {
  location_id: string;
  evse_uid: string;
  connector_id: string;
}

export type CommandRequest = StartSession | StopSession | ReserveNow | CancelReservation | UnlockConnector;

export interface CommandResponse {
  result: CommandResponseType;
  /** seconds the sender should wait for the result; absent in 2.1.1 */
  timeout?: number;
  message?: DisplayText[];
  [extra: string]: unknown;
}

export interface CommandResult {
  result: CommandResultType;
  message?: DisplayText[];
  [extra: string]: unknown;
}

/** The EVSE capability that makes connector_id mandatory in START_SESSION. */
export const CONNECTOR_REQUIRED = "START_SESSION_CONNECTOR_REQUIRED";
