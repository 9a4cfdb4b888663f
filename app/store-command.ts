import { OcpiError } from "../core/contract/errors";
import type { Gateway } from "./gateway";

export type Lines = (line: string) => void;

/** The options every such command takes (node:util parseArgs): its config file, its usage, JSON output. */
export const STORE_COMMAND_OPTIONS = {
  config: { type: "string", short: "c" },
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
} as const;

/** What a store command's arguments got wrong: exit 2, with the usage (runStoreCommand). */
export class UsageError extends Error {}

/**
 * The action and the positionals after it, as `arity` asks for each action: 1, the partner; 2, the partner and
 * the id of one object (`idName`, as the usage names it). Anything else is a UsageError naming what was expected.
 */
export const actionOf = <A extends string>(positionals: string[], arity: Record<A, 1 | 2>, idName: string): { action: A; partner: string; id?: string } => {
  const [action, partner, id, ...extra] = positionals;
  const wanted = (arity as Record<string, 1 | 2 | undefined>)[action ?? ""];
  if (!wanted) throw new UsageError(action ? `unknown action "${action}" (${Object.keys(arity).join(", ")})` : "an action is required");
  if (!partner || (wanted === 2 && !id) || (wanted === 1 && id) || extra.length)
    throw new UsageError(`${action} takes ${wanted === 1 ? "<partner>" : `<partner> <${idName}>`}, got ${positionals.length - 1} argument(s)`);
  return { action: action as A, partner, id };
};

/** `--body`: its JSON, read as the object it should be (the command's client refuses, 2001, a body of the wrong shape); {} when not given. */
export const bodyOption = (text: string | undefined): Record<string, unknown> => {
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--body is not JSON: ${(error as Error).message}`);
  }
};

/** A command run on the gateway's store: its name and usage, how its arguments read, what it acts through, and its work. */
export interface StoreCommand<C extends { configFile: string; action?: string }, S> {
  name: string;
  usage: string;
  /** the command its arguments ask for, or "help"; throws, naming what is wrong, on a usage error */
  parse(argv: string[]): C | "help";
  /** what the command acts through on the started gateway (a plugin's desk or client); undefined: not served */
  served(gateway: Gateway): Promise<S | undefined>;
  /** why the gateway cannot run it when `served` found nothing (exit 1) */
  notServed: string;
  /** the work; exit code 0 */
  run(served: S, command: C, out: Lines): Promise<void>;
}

/**
 * Runs a command on the gateway's store and registrations, beside a serving gateway (`terminals`,
 * `invoices`, `bookings`, `audit`): a usage error is exit 2 with the usage, `--help` the usage; the
 * gateway's code is loaded only once the arguments are good (app/cli.ts), and a gateway started quietly on
 * the config; an OCPI refusal (2001 naming the field, a partner's error) is exit 1 with its message and
 * status; the gateway is closed whatever happened.
 */
export const runStoreCommand = async <C extends { configFile: string; action?: string }, S>(spec: StoreCommand<C, S>, argv: string[], out: Lines, err: Lines): Promise<number> => {
  let command: C | "help";
  try {
    command = spec.parse(argv);
  } catch (error) {
    err(`${spec.name}: ${(error as Error).message}\n${spec.usage}`);
    return 2;
  }
  if (command === "help") {
    out(spec.usage);
    return 0;
  }
  const [{ loadConfig }, { Gateway }] = await Promise.all([import("../config/load-config"), import("./gateway")]);
  const config = loadConfig(command.configFile);
  const gateway = await Gateway.create({ ...config, server: { ...config.server, log_level: "warn" } });
  try {
    const served = await spec.served(gateway);
    if (served === undefined) {
      err(`${spec.name}: ${spec.notServed}`);
      return 1;
    }
    await spec.run(served, command, out);
    return 0;
  } catch (error) {
    if (!(error instanceof OcpiError)) throw error;
    const http = error.httpStatus === 200 ? "" : `, HTTP ${error.httpStatus}`;
    err(`${spec.name}${command.action ? ` ${command.action}` : ""}: ${error.message} (OCPI status ${error.statusCode}${http})`);
    return 1;
  } finally {
    await gateway.close();
  }
};
