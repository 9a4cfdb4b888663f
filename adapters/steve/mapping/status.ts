import type { EvseStatusFacts } from "../db/rows";
import type { StatusPolicy } from "./settings";

/** OCPP 1.6 (and 1.5) ChargePointStatus → OCPI EVSE status (docs/steve.md, "EVSE status"). */
export function ocppToOcpi(status: string | null, policy: StatusPolicy): string {
  switch (status) {
    case "Available":
      return "AVAILABLE";
    case "Preparing":
      return policy.preparing;
    case "Charging":
    case "SuspendedEV":
    case "SuspendedEVSE":
    case "Occupied":
      return "CHARGING";
    case "Finishing":
      return policy.finishing;
    case "Reserved":
      return "RESERVED";
    case "Unavailable":
      return "INOPERATIVE";
    case "Faulted":
      return "OUTOFORDER";
    default:
      return "UNKNOWN";
  }
}

/**
 * The EVSE's status with the station-level overrides, strongest first: a
 * station SteVe has not accepted is INOPERATIVE; one silent past the
 * heartbeat limit is UNKNOWN; a station-wide (connector 0) Faulted or
 * Unavailable holds for every EVSE; then the EVSE's own newest status, where
 * an accepted, unexpired reservation turns AVAILABLE into RESERVED.
 */
export function evseStatus(facts: EvseStatusFacts, now: Date, policy: StatusPolicy): string {
  if (facts.registrationStatus !== "Accepted") return "INOPERATIVE";
  const staleAfter = policy.heartbeat_stale_after_seconds;
  if (staleAfter !== undefined && (!facts.lastHeartbeat || now.getTime() - facts.lastHeartbeat.getTime() > staleAfter * 1000))
    return "UNKNOWN";
  const station = facts.station?.status;
  if (station === "Faulted") return "OUTOFORDER";
  if (station === "Unavailable") return "INOPERATIVE";
  const own = ocppToOcpi(facts.latest?.status ?? null, policy);
  return own === "AVAILABLE" && facts.reservation && facts.reservation.expiry > now ? "RESERVED" : own;
}
