import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { RouteSpec } from "../../core/contract/module-plugin";
import type { AdminRequest, AdminRoute } from "../../core/contract/admin-route";
import type { PendingEntry, PendingRequests } from "../../core/async/pending-requests";
import type { PendingSpec } from "../../core/async/async-module";
import type { PartnerRegistry } from "../../core/partners/partner-registry";
import type { Store } from "../../core/contract/store";
import { invalid, invalidFields, notFound } from "../../core/contract/errors";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import { receiveOutcome, responseUrlFor, sendTracked, type SentRequest } from "../../core/async/outgoing";
import { admitPartner } from "../../core/edge/admit";
import { written } from "../../core/modules/receiver-writes";
import { COMMAND_TYPES, type CommandRequest, type CommandResponse, type CommandResult, type CommandType } from "./model";
import type { CommandsSenderPort } from "./ports";
import { commandSpecOf } from "./command-types";
import { commandResultType } from "./translate";
import type { CommandsClient } from "./client";
import { targetParty } from "../hubclientinfo/reachable";

/** Pending-request kind of the commands the backend issued to partners. */
export const SENT_COMMANDS = "commands.sent";

export interface SentCommandData extends SentRequest<CommandResponse> {
  type: CommandType;
}

const TIMED_OUT: CommandResult = { result: "TIMEOUT", message: [{ language: "en", text: "No result from the partner in time" }] };

/**
 * The eMSP side of commands (OCPI 2.2.1 Commands module): the backend issues
 * a command (admin API), the gateway POSTs it with a response_url of its own
 * that is unique per command, keeps it pending in the store, takes the
 * partner's CommandResult there and hands it to the adapter once
 * (SENT_COMMANDS_SPEC); when none comes in time the adapter gets TIMEOUT. A
 * result for a command we sent is never refused (core/async/outgoing.ts
 * receiveOutcome); for an unknown one it is 404.
 */
export const senderRoutes = (pending: PendingRequests, log: Logger): RouteSpec[] => [
  // the response_url of every command we send: /{command}/{uid} under our Sender interface
  {
    method: "POST",
    path: "/:command/:uid",
    body: { type: commandResultType, mode: "full" },
    handle: async (req) => {
      const { uid, command } = req.params;
      await receiveOutcome<SentCommandData>({
        pending,
        kind: SENT_COMMANDS,
        uid,
        partnerId: req.ctx.partner.id,
        from: req.ctx.from,
        belongs: (d) => d.type === command,
        outcome: req.body,
        what: "Command",
        log,
      });
      return written();
    },
  },
];

/** What issuing a command takes. */
export interface CommandIssuing {
  pending: PendingRequests;
  client: CommandsClient;
  registry: PartnerRegistry;
  store: Store;
  config: GatewayConfig;
}

export const senderAdminRoutes = (on: CommandIssuing): AdminRoute[] => [
  // ?to=NLCPO: a CPO party behind the partner, a hub (plugins/hubclientinfo/reachable.ts)
  { method: "POST", path: "/commands/:partner/:command", handle: async (req) => ({ data: await issue(on, req) }) },
  {
    method: "GET",
    path: "/commands/:uid",
    handle: async (req) => {
      const entry = await on.pending.get<SentCommandData, CommandResult>(SENT_COMMANDS, req.params.uid);
      if (!entry) throw notFound("Command");
      return { data: view(entry) };
    },
  },
];

/** Commands our backend sent: the partner's result, or our TIMEOUT, goes to the adapter once. */
export const SENT_COMMANDS_SPEC: PendingSpec<CommandsSenderPort, SentCommandData, CommandResult> = {
  name: SENT_COMMANDS,
  timeoutOutcome: () => TIMED_OUT,
  async deliver(port, entry, outcome) {
    const { data } = entry;
    await port.onResult({ uid: entry.id, partnerId: data.partnerId, type: data.type }, outcome, {
      partnerId: data.partnerId,
      party: data.party,
      version: data.version,
    });
  },
};

const issue = async (on: CommandIssuing, req: AdminRequest) => {
  const { config, registry } = on;
  const partnerId = req.params.partner;
  const spec = commandSpecOf(req.params.command);
  if (!spec) throw invalid(`command must be one of ${COMMAND_TYPES.join(", ")}`);
  const { version } = await admitPartner({ config, registry }, partnerId, "commands");
  if (!spec.versions.includes(version)) throw invalid(`${spec.type} does not exist in OCPI ${version}, the version of partner ${partnerId}`);
  if (typeof req.body !== "object" || req.body === null || Array.isArray(req.body)) throw invalid(`Request body with a ${spec.request.name} is required`);
  const to = await targetParty(config, on.store, registry, partnerId, req.query.to);

  const uid = randomUUID();
  const response_url = responseUrlFor(config, version, "commands", `/${spec.type}/${uid}`);
  const parsed = spec.request.schema("2.3.0", "full").safeParse(withoutNulls({ ...req.body, response_url }));
  if (!parsed.success) throw invalidFields(issuesOf(parsed.error));

  const { country_code, party_id } = config.parties[0];
  const data: SentCommandData = { partnerId, type: spec.type, version, party: { country_code, party_id }, to, callbacks: 0 };
  const response = await sendTracked(on.pending, SENT_COMMANDS, uid, data, config, () =>
    on.client.send(partnerId, version, spec, parsed.data as CommandRequest, to),
  );
  return { uid, response };
};

/** A sent command as the admin API shows it. */
const view = (entry: PendingEntry<SentCommandData, CommandResult>) => ({
  uid: entry.id,
  partner_id: entry.data.partnerId,
  to: entry.data.to,
  command: entry.data.type,
  state: entry.state,
  response: entry.data.response,
  result: entry.outcome,
  timed_out: entry.timedOut ?? false,
  late_result: entry.data.lateOutcome,
  callbacks: entry.data.callbacks,
});
