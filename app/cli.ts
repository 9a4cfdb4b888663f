import "reflect-metadata";
import { parseArgs } from "node:util";
import type { GatewayConfig } from "../config/types";
import { applyHeapGrowth } from "./heap-growth";

/*
 * Each command's code is loaded when the command runs (import() below), not at start: the gateway's code
 * (every plugin and adapter, about 1 s of CPU to load) is no cost of a --help or of a usage error, which
 * need none of it.
 */

const USAGE = `Usage:
  ocpi-gateway start [--config FILE]
  ocpi-gateway check-config [--config FILE]
  ocpi-gateway partners list|add <id>|register <id>|update <id>|unregister <id> [--config FILE]
  ocpi-gateway sync <partner> <module> [--full] [--config FILE]
  ocpi-gateway outbox retry <partner> [--id ID] [--config FILE]
  ocpi-gateway probe <versions_url> --token TOKEN [--json]
  ocpi-gateway terminals list|get|activate|deactivate|assign|update|facs <partner> … (terminals --help)
  ocpi-gateway invoices add|list <partner> … (invoices --help)
  ocpi-gateway bookings request|cancel|get|list|locations <partner> … (bookings --help)
  ocpi-gateway audit cdrs <partner> [--since DATETIME] [--verdict VERDICT] [--csv|--json] (audit --help)

The config file defaults to $GATEWAY_CONFIG, then ./gateway.config.yaml.`;

const out = (line: string) => process.stdout.write(line + "\n");
const err = (line: string) => process.stderr.write(line + "\n");

const main = async (argv: string[]): Promise<number> => {
  // its own flags (--location, --evse, --body…): parsed by the command
  if (argv[0] === "terminals") return (await import("./terminals-command")).runTerminalsCommand(argv.slice(1), out, err);
  if (argv[0] === "invoices") return (await import("./invoices-command")).runInvoicesCommand(argv.slice(1), out, err);
  if (argv[0] === "bookings") return (await import("./bookings-command")).runBookingsCommand(argv.slice(1), out, err);
  if (argv[0] === "audit") return (await import("./audit-command")).runAuditCommand(argv.slice(1), out, err);
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      config: { type: "string", short: "c" },
      help: { type: "boolean", short: "h" },
      full: { type: "boolean" },
      id: { type: "string" },
      token: { type: "string" },
      json: { type: "boolean" },
    },
    allowPositionals: true,
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    out(USAGE);
    return command ? 0 : 1;
  }
  // the probe checks a partner, not our config
  if (command === "probe") return (await import("./probe/probe-command")).runProbeCommand(rest, values.token, values.json ?? false, out, err);
  const file = values.config ?? process.env.GATEWAY_CONFIG ?? "./gateway.config.yaml";
  const config = (await import("../config/load-config")).loadConfig(file);
  // this process runs the gateway (serving, or a pull of `sync`): V8's heap growth as configured
  applyHeapGrowth(config.server);
  switch (command) {
    case "start":
      return start(config);
    case "check-config":
      return checkConfig(config);
    case "partners":
      return (await import("./partners-command")).runPartnersCommand(config, rest, out);
    case "sync":
      return (await import("./sync-command")).runSyncCommand(config, rest, values.full ?? false, out);
    case "outbox":
      return (await import("./outbox-command")).runOutboxCommand(config, rest, values.id, out);
    default:
      err(`Unknown command "${command}"\n${USAGE}`);
      return 1;
  }
};

/** Syntax and rules were checked by loadConfig; this adds the module-to-adapter routing, checked on a throwaway in-memory store. */
const checkConfig = async (config: GatewayConfig): Promise<number> => {
  const [{ Gateway, StartupError }, { stringify }, { maskSecrets }] = await Promise.all([import("./gateway"), import("yaml"), import("../config/mask-secrets")]);
  try {
    const probe = await Gateway.create({ ...config, store: { type: "sqlite", path: ":memory:" } });
    await probe.close();
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    err(`Config is invalid:\n${error.errors.map((e) => `  ${e}`).join("\n")}`);
    return 1;
  }
  out(stringify(maskSecrets(config)));
  return 0;
};

const start = async (config: GatewayConfig): Promise<number> => {
  const [{ Gateway }, { describePartners }, { absolute, versionsPath }] = await Promise.all([import("./gateway"), import("./partners-command"), import("../core/http/urls")]);
  const gateway = await Gateway.create(config);
  const port = await gateway.listen();
  out(`ocpi-gateway listening on http://${config.server.host}:${port}`);
  out(`versions URL: ${absolute(config.server.public_url, versionsPath())}`);
  for (const line of await describePartners(gateway)) out(line);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      out(`${signal}: finishing in-flight requests and closing`);
      resolve();
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
  await gateway.close();
  return 0;
};

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // ConfigError, StartupError (by name: their modules may not have been loaded)
    if (error instanceof Error && (error.name === "ConfigError" || error.name === "StartupError")) err(error.message);
    else err(`Error: ${(error as Error).message}`);
    process.exit(1);
  },
);
