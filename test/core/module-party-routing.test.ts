import "reflect-metadata";
import pino from "pino";
import { Gateway, StartupError } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig, type GatewayConfigOptions } from "../support/gateway-config";

/**
 * Start-up checks of `modules.<id>.parties` routes and of the proxy
 * adapter's settings (README "Several parties on one gateway", "Proxy
 * modules"): every adapter a party is routed to must exist and implement the
 * module's ports, and each problem is one `path: message` line.
 */
const PARTIES: GatewayConfigOptions["party"] = [
  { country_code: "NL", party_id: "AAA", role: "CPO" },
  { country_code: "NL", party_id: "BBB", role: "CPO" },
];

const startupErrors = async (options: Omit<GatewayConfigOptions, "port">): Promise<string[]> => {
  const error = await Gateway.create(testGatewayConfig({ port: 9, party: PARTIES, ...options }), { logger: pino({ level: "silent" }) }).then(
    (gateway) => gateway.close().then(() => undefined),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StartupError);
  return (error as StartupError).errors;
};

const PROXY = { type: "proxy", base_url: "http://127.0.0.1:9/ocpi/versions", token: "backend-token" };

afterAll(removeTempDirs);

it("refuses a party routed to an unknown adapter", async () => {
  expect(await startupErrors({ modules: { locations: { adapter: "local", parties: ["NLAAA", { party: "NLBBB", adapter: "nope" }] } } })).toEqual([
    'modules.locations.parties[1].adapter: unknown adapter "nope" (available: local, steve, tms, proxy)',
  ]);
});

it("refuses a party routed to an adapter without the module's port", async () => {
  const errors = await startupErrors({
    modules: { tokens: { adapter: "local", parties: ["NLAAA", { party: "NLBBB", adapter: "csms" }] } },
    adapters: { local: {}, csms: PROXY },
  });
  expect(errors).toEqual(['modules.tokens.parties[1]: adapter "csms" does not implement tokens.SENDER']);
});

it("names every problem of the proxy adapter's settings, never the token", async () => {
  const errors = await startupErrors({
    modules: { locations: { adapter: "csms" } },
    adapters: { csms: { type: "proxy", base_url: "ftp://csms.example/versions", token: "has space", version: "2.0", extra: 1 } },
  });
  expect(errors).toEqual([
    "adapters.csms.base_url: must be an absolute http:// or https:// URL without user name or password (the backend's versions endpoint)",
    "adapters.csms.token: must be 1-64 printable ASCII characters (write it as ${ENV_VAR}: it is a secret)",
    "adapters.csms.version: must be one of: 2.3.0, 2.2.1, 2.1.1",
    "adapters.csms: unknown setting extra",
  ]);
  expect(errors.join("\n")).not.toContain("has space");
});
