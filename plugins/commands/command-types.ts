import type { VersionNumber } from "../../core/protocol/types";
import type { ObjectType } from "../../core/contract/object-type";
import type { CommandRequest, CommandType, ReserveNow, StartSession, StopSession, UnlockConnector } from "./model";
import type { Token } from "../tokens/model";
import { cancelReservationType, reserveNowType, startSessionType, stopSessionType, unlockConnectorType } from "./translate";

/** The Location, EVSE and connector a command acts on; checked before the charge point is asked. */
export interface CommandTarget {
  location_id: string;
  evse_uid?: string;
  connector_id?: string;
}

export interface CommandSpec {
  type: CommandType;
  request: ObjectType<CommandRequest>;
  versions: readonly VersionNumber[];
  target?(request: CommandRequest): CommandTarget;
  /** the token the command starts or reserves with: its owner must be one of the sender's parties */
  token?(request: CommandRequest): Token;
  /** the session the command acts on: it must be ours and its token owner in the sender's scope */
  session?(request: CommandRequest): string;
}

const ALL: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];

const atLocation = (request: CommandRequest): CommandTarget => {
  const { location_id, evse_uid, connector_id } = request as StartSession | UnlockConnector;
  return { location_id, evse_uid, connector_id };
};

const withToken = (request: CommandRequest): Token => (request as StartSession | ReserveNow).token;

/** Every command type, its request object and the versions it exists in. */
export const COMMANDS: Readonly<Record<CommandType, CommandSpec>> = {
  START_SESSION: { type: "START_SESSION", request: startSessionType, versions: ALL, target: atLocation, token: withToken },
  STOP_SESSION: { type: "STOP_SESSION", request: stopSessionType, versions: ALL, session: (request) => (request as StopSession).session_id },
  RESERVE_NOW: { type: "RESERVE_NOW", request: reserveNowType, versions: ALL, target: atLocation, token: withToken },
  // Reservations are not tracked by the gateway: whose reservation_id it is cannot be checked here (the backend must).
  CANCEL_RESERVATION: { type: "CANCEL_RESERVATION", request: cancelReservationType, versions: ["2.3.0", "2.2.1"] },
  UNLOCK_CONNECTOR: { type: "UNLOCK_CONNECTOR", request: unlockConnectorType, versions: ALL, target: atLocation },
};

export const commandSpecOf = (name: string): CommandSpec | undefined =>
  Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name as CommandType] : undefined;
