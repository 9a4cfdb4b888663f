import type { CommandResult, CommandResultType } from "../ocpi";
import { SteveRestError, type OcppOperationResponse } from "./client";

/**
 * SteVe's answer to an operations call → the OCPI CommandResult the eMSP
 * gets at its response_url. The whole table:
 *
 * | SteVe's answer                                   | CommandResult |
 * |--------------------------------------------------|---------------|
 * | taskFinished: false (SteVe stopped waiting)      | TIMEOUT |
 * | successResponses[0].response, per operation:     | |
 * |   RemoteStart/Stop: Accepted / Rejected          | ACCEPTED / REJECTED |
 * |   UnlockConnector: Unlocked / UnlockFailed / NotSupported | ACCEPTED / FAILED / NOT_SUPPORTED |
 * |   ReserveNow: Accepted / Occupied / Faulted, Unavailable / Rejected | ACCEPTED / EVSE_OCCUPIED / EVSE_INOPERATIVE / REJECTED |
 * |   CancelReservation: Accepted / Rejected (no such reservation) | ACCEPTED / UNKNOWN_RESERVATION |
 * |   any other status                               | FAILED |
 * | errorResponses (the station's CALLERROR): NotImplemented, NotSupported | NOT_SUPPORTED |
 * |   any other errorCode                            | FAILED |
 * | exceptions (SteVe could not send: station not connected, …) | FAILED |
 * | none of these                                    | FAILED |
 * | our HTTP call timed out (timeout_ms)             | TIMEOUT |
 * | SteVe unreachable, HTTP error, not SteVe's JSON  | FAILED |
 *
 * Messages name SteVe's error code or the reason in English; no credentials
 * are ever in them (SteveRestError messages carry none).
 */

const STATUS: Record<string, Record<string, CommandResultType>> = {
  RemoteStartTransaction: { Accepted: "ACCEPTED", Rejected: "REJECTED" },
  RemoteStopTransaction: { Accepted: "ACCEPTED", Rejected: "REJECTED" },
  UnlockConnector: { Unlocked: "ACCEPTED", UnlockFailed: "FAILED", NotSupported: "NOT_SUPPORTED" },
  ReserveNow: { Accepted: "ACCEPTED", Occupied: "EVSE_OCCUPIED", Faulted: "EVSE_INOPERATIVE", Unavailable: "EVSE_INOPERATIVE", Rejected: "REJECTED" },
  CancelReservation: { Accepted: "ACCEPTED", Rejected: "UNKNOWN_RESERVATION" },
};

const NOT_SUPPORTED_CODES = new Set(["NotImplemented", "NotSupported"]);

const result = (type: CommandResultType, text?: string): CommandResult =>
  text ? { result: type, message: [{ language: "en", text: text.slice(0, 512) }] } : { result: type };

export function resultOf(operation: string, answer: OcppOperationResponse): CommandResult {
  if (!answer.taskFinished) return result("TIMEOUT", "the charge point did not answer in time");
  const success = answer.successResponses[0];
  if (success) {
    const mapped = STATUS[operation]?.[success.response];
    return mapped ? result(mapped) : result("FAILED", `the charge point answered ${success.response}`);
  }
  const error = answer.errorResponses[0];
  if (error) {
    const said = error.errorDescription ? `: ${error.errorDescription}` : "";
    return result(NOT_SUPPORTED_CODES.has(error.errorCode) ? "NOT_SUPPORTED" : "FAILED", `the charge point answered ${error.errorCode}${said}`);
  }
  const exception = answer.exceptions[0];
  if (exception) return result("FAILED", `the central system could not reach the charge point: ${exception.exceptionMessage}`);
  return result("FAILED", "the central system gave no answer for the charge point");
}

/** A call that failed after the command was accepted. */
export const failureResult = (err: unknown): CommandResult =>
  err instanceof SteveRestError && err.kind === "timeout"
    ? result("TIMEOUT", "the central system did not answer in time")
    : result("FAILED", err instanceof SteveRestError && err.kind === "http" ? `the central system answered HTTP ${err.status}` : "the central system is unreachable");
