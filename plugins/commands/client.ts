import type { PartnerClient } from "../../core/client/partner-client";
import type { LossyTranslationLog } from "../../core/model/lossy";
import type { VersionNumber } from "../../core/protocol/types";
import { PartnerCallError } from "../../core/client/ocpi-client";
import { issuesOf } from "../../core/model/object-type";
import { withoutNulls } from "../../core/model/without-nulls";
import type { CommandRequest, CommandResponse } from "./model";
import type { CommandSpec } from "./command-types";
import { commandResponseType } from "./translate";
import { describeIssues } from "../../core/http/errors";

/** Outbound calls of the commands module: POSTing a command to a partner CPO in its negotiated version. */
export class CommandsClient {
  constructor(
    private readonly partners: PartnerClient,
    private readonly lossy: LossyTranslationLog,
  ) {}

  /** The partner's CommandResponse; a refusal (2xxx) or failure is a PartnerCallError. */
  async send(partnerId: string, version: VersionNumber, spec: CommandSpec, request: CommandRequest): Promise<CommandResponse> {
    const result = await this.partners.call(partnerId, {
      module: "commands",
      role: "RECEIVER",
      method: "POST",
      path: `/${spec.type}`,
      body: { type: spec.request, value: request },
    });
    const parsed = commandResponseType.schema(version, "full").safeParse(withoutNulls(result.envelope.data));
    if (!parsed.success) {
      const problems = describeIssues(issuesOf(parsed.error));
      throw new PartnerCallError("malformed", `POST commands/${spec.type}: the partner's CommandResponse is invalid: ${problems}`);
    }
    return commandResponseType.up(parsed.data, version, this.lossy.context(partnerId, commandResponseType.name, version, {}));
  }
}
