import type { CommandResult, CommandsReceiverPort, CommandsSenderPort, Location, SentCommand, Session, Store } from "../kit";
import type { LocalModule, LocalModuleContext } from "./local-module";
import { OwnedCollection } from "./owned-collection";
import { PlannedOutcomes, simulatorBehaviour } from "./simulator";

/** The embedded eMSP backend's inbox: every command result the gateway handed over, per command uid. */
export const COMMAND_RESULTS = "local:commands:results";

export interface ReceivedCommandResults extends SentCommand {
  results: CommandResult[];
}

/**
 * Commands on the `local` adapter. Receiver (CPO): a simulated charge point
 * (adapters/local/simulator.ts) that knows our party's Locations and
 * Sessions from the store (the gateway answers UNKNOWN_SESSION for a session
 * it does not find); every command it is handed is accepted and its
 * configured outcome reported later. It does not track reservations.
 * Sender (eMSP): results are kept in COMMAND_RESULTS.
 */
export const localCommands: LocalModule = {
  seedKey: "commands",
  portNames: ["commands.RECEIVER", "commands.SENDER"],
  create(store: Store, context?: LocalModuleContext) {
    const locations = new OwnedCollection<Location>(store, "locations");
    const sessions = new OwnedCollection<Session>(store, "sessions");
    const behaviour = simulatorBehaviour(context?.settings ?? {});
    const planned = new PlannedOutcomes<CommandResult>(store, "local:simulator:commands", context?.log);

    const receiver: CommandsReceiverPort = {
      connect: (sink) => planned.connect((id, result) => sink.report(id, result)),
      location: (id, ctx) => locations.get(ctx.party, id),
      session: (id, ctx) => sessions.get(ctx.party, id),
      async submit(command) {
        const { outcome, delay_ms } = behaviour(command.type);
        if (outcome !== "NO_ANSWER") await planned.add(command.id, delay_ms, { result: outcome });
        return { result: "ACCEPTED" };
      },
    };

    const sender: CommandsSenderPort = {
      async onResult(command, result) {
        await store.update<ReceivedCommandResults>(COMMAND_RESULTS, command.uid, (current) => ({
          value: { ...command, results: [...(current?.results ?? []), result] },
        }));
      },
    };

    return {
      ports: { "commands.RECEIVER": receiver, "commands.SENDER": sender },
      stop: () => planned.stop(),
      async seed() {
        throw new Error("commands are not seeded: partners send them");
      },
    };
  },
};
