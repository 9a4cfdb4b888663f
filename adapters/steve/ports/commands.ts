import type { CommandOutcomeSink, CommandsReceiverPort, LocationsSenderPort, PartyRef, PortContext, SessionsSenderPort } from "../../kit";
import type { SteveLog } from "../contracts";
import type { SteveBackend } from "../backend";
import { fromDatabase } from "../unavailable";

/**
 * The partner party a command acts for: the token's owner when it carries
 * one (the gateway checked it is the partner's), else the partner's first
 * party (CANCEL_RESERVATION carries no token; a reservation is found again
 * under the party that made it, so an eMSP with several parties should
 * cancel as the one that reserved).
 */
function senderOf(request: Record<string, unknown>, ctx: PortContext): PartyRef {
  const token = request.token as Partial<PartyRef> | undefined;
  if (token?.country_code && token.party_id) return { country_code: token.country_code, party_id: token.party_id };
  return ctx.scope?.parties[0] ?? { country_code: "", party_id: ctx.partnerId ?? "" };
}

/**
 * Commands to SteVe's stations (rest/commands.ts): the immediate answer
 * comes from SteVe's first second, the outcome is reported to the sink
 * whenever SteVe's blocking call returns. An outcome still running when the
 * gateway stops is lost; the gateway then answers TIMEOUT to the eMSP.
 */
export const commandsReceiver = (
  backend: SteveBackend,
  locations: LocationsSenderPort,
  sessions: SessionsSenderPort,
  log: SteveLog,
): CommandsReceiverPort => {
  let sink: CommandOutcomeSink | undefined;
  return {
    connect: (given) => void (sink = given),
    location: (id, ctx) => locations.get(id, ctx),
    session: (id, ctx) => sessions.get(id, ctx),
    async submit(command, ctx) {
      const request = command.request as Record<string, unknown>;
      const { commands } = await fromDatabase(async () => backend.require());
      const submitted = await commands.submit({ type: command.type, request, sender: senderOf(request, ctx) });
      void submitted.outcome?.then(async (result) => {
        try {
          if (!sink) throw new Error("no outcome sink connected");
          await sink.report(command.id, result);
        } catch (error) {
          log.error({ command: command.type, reason: (error as Error).message }, "steve: command outcome not reported; the gateway will answer TIMEOUT");
        }
      });
      return submitted.answer;
    },
  };
};
