import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { OcpiReply, OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRoute } from "../../core/contract/admin-route";
import type { PortContext } from "../../core/contract/port-context";
import type { PartyRef, VersionNumber } from "../../core/protocol/types";
import type { PendingRequests } from "../../core/async/pending-requests";
import type { PendingSpec } from "../../core/async/async-module";
import type { Outbox } from "../../core/outbox/outbox";
import type { LossyTranslationLog } from "../../core/model/lossy";
import { Status } from "../../core/protocol/status";
import { sameCiString } from "../../core/model/common-schemas";
import { invalid, invalidFields, notFound } from "../../core/contract/errors";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import { checkCallbackUrl } from "../../core/partners/callback-policy";
import { inScope } from "../../core/contract/port-context";
import { tokenOwnerInScope } from "../sessions/token-owner";
import { CONNECTOR_REQUIRED, type CommandRequest, type CommandResponse, type CommandResponseType, type CommandResult, type CommandType } from "./model";
import type { CommandAnswer, CommandsReceiverPort } from "./ports";
import { COMMANDS, type CommandSpec, type CommandTarget } from "./command-types";
import { commandResponseType, commandResultType } from "./translate";
import { commandResultSchema } from "./schemas";

/** Pending-request kind of the commands partners sent us. */
export const RECEIVED_COMMANDS = "commands.received";

/** What the gateway keeps about a received command until its result is posted. */
export interface ReceivedCommandData {
  partnerId: string;
  type: CommandType;
  /** the version the partner spoke: the result is posted in it */
  version: VersionNumber;
  responseUrl: string;
  /** our party that received it (routing `from` of the result) */
  party: PartyRef;
  /** the partner's party that sent it (routing `to` of the result) */
  sender?: PartyRef;
}


/**
 * The CPO side of commands (OCPI 2.2.1 Commands module): validates a
 * command, answers CommandResponse at once, hands it to the adapter, and
 * posts exactly one CommandResult to the response_url through the outbox:
 * the adapter's outcome, or TIMEOUT once the announced timeout has passed,
 * whichever claims the pending entry first (receivedCommandsSpec).
 */
export const receiverRoutes = (port: CommandsReceiverPort, pending: PendingRequests, timeoutSeconds: number): RouteSpec[] => {
  const on: Receiving = { port, pending, timeoutSeconds };
  const known: RouteSpec[] = Object.values(COMMANDS).map((spec) => ({
    method: "POST",
    path: `/${spec.type}`,
    versions: spec.versions,
    body: { type: spec.request, mode: "full" },
    response: commandResponseType,
    handle: (req) => receive(on, spec, req),
  }));
  // CommandType is open in 2.3.0, and CANCEL_RESERVATION does not exist in 2.1.1: what we do not know is not supported.
  const unknown: RouteSpec = {
    method: "POST",
    path: "/:command",
    response: commandResponseType,
    handle: async (req) => ({ data: response(timeoutSeconds, "NOT_SUPPORTED", `Command ${req.params.command} is not supported`) }),
  };
  return [...known, unknown];
};

/** For backends that report outcomes over HTTP: any instance may take the outcome of a command another one received. */
export const receiverAdminRoutes = (pending: PendingRequests): AdminRoute[] => [
  {
    method: "POST",
    path: "/command-outcomes/:id",
    handle: async (req) => {
      const parsed = commandResultSchema("2.3.0").safeParse(withoutNulls(req.body ?? {}));
      if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
      const settlement = await pending.settle(RECEIVED_COMMANDS, req.params.id, parsed.data as CommandResult);
      if (settlement === "unknown") throw notFound("Command");
      if (settlement === "finished") throw invalid(`Command ${req.params.id} already has a result`);
      return { data: { id: req.params.id, result: parsed.data.result } };
    },
  },
];

/** Commands partners sent us: their result, the adapter's or our TIMEOUT, is queued for the partner's response_url. */
export const receivedCommandsSpec = (
  outbox: Outbox,
  lossy: LossyTranslationLog,
  log: Logger,
): PendingSpec<CommandsReceiverPort, ReceivedCommandData, CommandResult> => ({
  name: RECEIVED_COMMANDS,
  timeoutOutcome: () => ({ result: "TIMEOUT" }),
  async deliver(_port, entry, outcome) {
    const { data } = entry;
    const tx = lossy.context(data.partnerId, commandResultType.name, data.version, {});
    // one id per request: a delivery repeated after a store failure (PendingKind.deliver) queues and sends it once
    await outbox.enqueue({
      id: `${RECEIVED_COMMANDS}:${entry.id}`,
      partnerId: data.partnerId,
      request: {
        method: "POST",
        target: { url: data.responseUrl },
        body: commandResultType.down(outcome, data.version, tx),
        from: data.party,
        to: data.sender,
      },
      label: `POST commands ${data.type} result ${outcome.result}`,
      essential: true,
    });
    log.info({ partner: data.partnerId, command: data.type, id: entry.id, result: outcome.result }, "command result queued for the partner");
  },
});

/** What the receiver routes work with. */
interface Receiving {
  port: CommandsReceiverPort;
  pending: PendingRequests;
  timeoutSeconds: number;
}

const receive = async (on: Receiving, spec: CommandSpec, req: OcpiRequest): Promise<OcpiReply> => {
  const command = req.body as CommandRequest;
  const { partner } = req.ctx;
  checkCallbackUrl("response_url", command.response_url, partner.config, partner.record);
  const ctx = req.port;
  const refusal = (await checkOwner(on, spec, command, ctx)) ?? (spec.target && (await checkTarget(on, spec, spec.target(command), req.ctx.version, ctx)));
  if (refusal) return refusal;

  const id = randomUUID();
  const data: ReceivedCommandData = {
    partnerId: partner.id,
    type: spec.type,
    version: req.ctx.version,
    responseUrl: command.response_url,
    party: { country_code: req.ctx.party.country_code, party_id: req.ctx.party.party_id },
    sender: req.ctx.from,
  };
  // Open before the adapter hears of it: its outcome may come back before submit() does.
  await on.pending.open(RECEIVED_COMMANDS, id, data, Date.now() + on.timeoutSeconds * 1000);
  const { response_url: _responseUrl, ...request } = command;
  let answer: CommandAnswer;
  try {
    answer = await on.port.submit({ id, type: spec.type, request }, ctx);
  } catch (error) {
    await on.pending.close(RECEIVED_COMMANDS, id);
    throw error;
  }
  if (answer.result !== "ACCEPTED") await on.pending.close(RECEIVED_COMMANDS, id);
  return { data: { result: answer.result, timeout: on.timeoutSeconds, ...(answer.message ? { message: answer.message } : {}) } };
};

/**
 * A command acts for the owner of its token (Part B; "eMSP SHALL only use its own tokens", OCPI 2.2.1 Commands module).
 * A START_SESSION or RESERVE_NOW naming a token of a party outside the sender's scope is REJECTED with a
 * message: the request is well-formed, so not 2001, and REJECTED is the CommandResponse every version gives
 * a CPO for a command it will not carry out. A STOP_SESSION of another eMSP's session is UNKNOWN_SESSION,
 * exactly the answer for a session that does not exist, so nothing about it is revealed.
 */
const checkOwner = async (on: Receiving, spec: CommandSpec, command: CommandRequest, ctx: OcpiRequest["port"]): Promise<OcpiReply | undefined> => {
  const token = spec.token?.(command);
  if (token && !inScope(ctx.scope, token))
    return { data: response(on.timeoutSeconds, "REJECTED", `Token ${token.country_code}/${token.party_id} is not one of the sender's own tokens`) };
  const sessionId = spec.session?.(command);
  if (sessionId === undefined) return undefined;
  const session = await on.port.session(sessionId, ctx);
  if (!session || !tokenOwnerInScope(ctx.scope, session)) return { data: response(on.timeoutSeconds, "UNKNOWN_SESSION", `Unknown session ${sessionId}`) };
  return undefined;
};

/** Unknown location: 2003 with REJECTED (the spec's sequence diagram); unknown EVSE or connector: REJECTED. */
const checkTarget = async (
  on: Receiving,
  spec: CommandSpec,
  target: CommandTarget,
  version: VersionNumber,
  ctx: PortContext,
): Promise<OcpiReply | undefined> => {
  const rejected = (text: string) => response(on.timeoutSeconds, "REJECTED", text);
  const location = await on.port.location(target.location_id, ctx);
  if (!location) return { data: rejected(`Unknown location ${target.location_id}`), statusCode: Status.UNKNOWN_LOCATION };
  if (target.evse_uid === undefined) return undefined;
  const evse = location.evses?.find((e) => sameCiString(e.uid, target.evse_uid!));
  if (!evse) return { data: rejected(`Unknown EVSE ${target.evse_uid} at location ${target.location_id}`) };
  // 2.1.1 has neither the capability nor connector_id in StartSession.
  if (spec.type === "START_SESSION" && version !== "2.1.1" && target.connector_id === undefined && evse.capabilities?.includes(CONNECTOR_REQUIRED))
    throw invalid(`/connector_id: is required: EVSE ${evse.uid} has the capability ${CONNECTOR_REQUIRED}`);
  // 2.1.1 has no connector_id, so no schema typed one a partner adds anyway (unknown properties are kept).
  if (target.connector_id !== undefined && typeof target.connector_id !== "string") throw invalid("/connector_id: must be a string");
  if (target.connector_id !== undefined && !evse.connectors.some((c) => sameCiString(c.id, target.connector_id!)))
    return { data: rejected(`Unknown connector ${target.connector_id} at EVSE ${evse.uid}`) };
  return undefined;
};

const response = (timeoutSeconds: number, result: CommandResponseType, text: string): CommandResponse => ({
  result,
  timeout: timeoutSeconds,
  message: [{ language: "en", text }],
});
