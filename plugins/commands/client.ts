import type { Logger } from "pino";
import type { PartnerClient } from "../../core/client/partner-client";
import type { LossyTranslationLog } from "../../core/model/lossy";
import type { PartyRef, VersionNumber } from "../../core/protocol/types";
import { parseImmediateAnswer } from "../../core/async/immediate-answer";
import type { CommandRequest, CommandResponse } from "./model";
import type { CommandSpec } from "./command-types";
import { commandResponseType } from "./translate";

/** Outbound calls of the commands module: POSTing a command to a partner CPO in its negotiated version. */
export class CommandsClient {
  constructor(
    private readonly partners: PartnerClient,
    private readonly lossy: LossyTranslationLog,
    /** our server.command_timeout_seconds, for an answer without `timeout` */
    private readonly timeoutSeconds: number,
    private readonly log: Logger,
  ) {}

  /** The partner's CommandResponse; a refusal (2xxx) or failure is a PartnerCallError. `to`: the party it is for (a CPO behind a hub). */
  async send(partnerId: string, version: VersionNumber, spec: CommandSpec, request: CommandRequest, to?: PartyRef): Promise<CommandResponse> {
    const result = await this.partners.call(partnerId, {
      module: "commands",
      role: "RECEIVER",
      method: "POST",
      path: `/${spec.type}`,
      body: { type: spec.request, value: request },
      to,
    });
    const schema = commandResponseType.schema(version, "full");
    const data = await this.partners.repaired(partnerId, commandResponseType, schema, result.envelope.data);
    const answer = parseImmediateAnswer(schema, data, `the partner's CommandResponse to POST commands/${spec.type}`, {
      seconds: this.timeoutSeconds,
      log: this.log,
      partnerId,
    });
    return commandResponseType.up(answer, version, this.lossy.context(partnerId, commandResponseType.name, version, {}));
  }
}
