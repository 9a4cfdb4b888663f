import type { VersionNumber } from "../../core/protocol/types";
import type { ObjectType } from "../../core/model/object-type";
import type { CommandRequest, CommandType, StartSession, UnlockConnector } from "./model";
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
}

const ALL: readonly VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];

const atLocation = (request: CommandRequest): CommandTarget => {
  const { location_id, evse_uid, connector_id } = request as StartSession | UnlockConnector;
  return { location_id, evse_uid, connector_id };
};

/** Every command type, its request object and the versions it exists in. */
export const COMMANDS: Readonly<Record<CommandType, CommandSpec>> = {
  START_SESSION: { type: "START_SESSION", request: startSessionType, versions: ALL, target: atLocation },
  STOP_SESSION: { type: "STOP_SESSION", request: stopSessionType, versions: ALL },
  RESERVE_NOW: { type: "RESERVE_NOW", request: reserveNowType, versions: ALL, target: atLocation },
  CANCEL_RESERVATION: { type: "CANCEL_RESERVATION", request: cancelReservationType, versions: ["2.3.0", "2.2.1"] },
  UNLOCK_CONNECTOR: { type: "UNLOCK_CONNECTOR", request: unlockConnectorType, versions: ALL, target: atLocation },
};

export const commandSpecOf = (name: string): CommandSpec | undefined =>
  Object.prototype.hasOwnProperty.call(COMMANDS, name) ? COMMANDS[name as CommandType] : undefined;
