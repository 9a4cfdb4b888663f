import type { PortContext } from "../../core/contract/port-context";
import type { Location } from "../locations/model";
import type { Session } from "../sessions/model";
import type { CommandRequest, CommandResponseType, CommandResult, CommandType, DisplayText } from "./model";

/** The command types a CommandsReceiverPort is handed. */
export { COMMAND_TYPES } from "./model";

/** A command a partner sent us, as the adapter gets it. */
export interface ReceivedCommand {
  /** the gateway's id of the command: the adapter reports the outcome under it */
  id: string;
  type: CommandType;
  /** the canonical request without response_url: the result goes back through the gateway */
  request: Omit<CommandRequest, "response_url">;
}

/** The adapter's immediate answer; only ACCEPTED is followed by an outcome. */
export interface CommandAnswer {
  result: CommandResponseType;
  message?: DisplayText[];
}

/** Where an adapter reports the outcome of an accepted command (at any time, from any gateway instance). */
export interface CommandOutcomeSink {
  /** false when the command already has a result (e.g. the gateway's TIMEOUT) or is unknown */
  report(commandId: string, result: CommandResult): Promise<boolean>;
}

/** The charge point side (CPO): commands partners send to our charge points. */
export interface CommandsReceiverPort {
  /** called once before the gateway serves; the sink also takes outcomes of commands accepted before a restart */
  connect(sink: CommandOutcomeSink): void;
  /** our party's Location, so unknown locations, EVSEs and connectors are refused before the charge point is asked */
  location(locationId: string, ctx: PortContext): Promise<Location | undefined>;
  /** our party's session, whatever its token owner: the gateway answers UNKNOWN_SESSION for an unknown one or another eMSP's */
  session(sessionId: string, ctx: PortContext): Promise<Session | undefined>;
  /** hands the command to the charge point; only commands the gateway checked (location, token owner, session) reach it */
  submit(command: ReceivedCommand, ctx: PortContext): Promise<CommandAnswer>;
}

/** A command the backend issued to a partner CPO through the gateway. */
export interface SentCommand {
  uid: string;
  partnerId: string;
  type: CommandType;
}

/** The eMSP side: results of the commands the backend issued. */
export interface CommandsSenderPort {
  /** the partner's CommandResult, or TIMEOUT when none came in time; called once per command */
  onResult(command: SentCommand, result: CommandResult, ctx: PortContext): Promise<void>;
}
