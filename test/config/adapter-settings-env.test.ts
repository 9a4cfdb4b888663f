import fs from "node:fs";
import path from "node:path";
import { gatewayConfigYaml, removeTempDirs, tempDir } from "../support/gateway-config";
import { runCli } from "../support/gateway-process";

/**
 * Issue #22 item 5 for the adapters' own settings: `adapters.<name>` is
 * checked by the adapter's schema, not the gateway's, yet a number or a
 * boolean there may come from `${VAR}` as anywhere else in the config
 * (README "Config reference"). Checked as the operator checks a config:
 * `ocpi-gateway check-config` in a real process, with the environment set.
 */

jest.setTimeout(60_000);
afterAll(() => removeTempDirs());

const steveConfig = (): string =>
  gatewayConfigYaml({
    port: 9,
    party: { country_code: "DE", party_id: "ABC", role: "CPO" },
    modules: { locations: { adapter: "steve", roles: ["SENDER"] } },
    adapters: {
      steve: {
        database: { host: "127.0.0.1", port: "${DB_PORT}", user: "steve_ro", password: "${DB_PASSWORD}", database: "stevedb" },
        rest: { base_url: "http://127.0.0.1:9/steve", user: "gateway", password: "${API_PASSWORD}", timeout_ms: "${REST_TIMEOUT_MS}" },
        poll_interval_ms: "${POLL_MS:-500}",
        locations: { country_code: "DE", party_id: "ABC", currency: "EUR", publish: "${PUBLISH}" },
      },
    },
  });

const tmsConfig = (): string =>
  gatewayConfigYaml({
    port: 9,
    party: { country_code: "NL", party_id: "PTP", role: "PTP" },
    modules: { payments: { adapter: "tms", roles: ["SENDER"] } },
    adapters: {
      tms: { base_url: "http://127.0.0.1:9300", api_key: "${TMS_KEY}", webhook_secret: "${TMS_SECRET}", poll_interval_ms: "${TMS_POLL_MS}", page_limit: "${TMS_PAGE}" },
    },
  });

const checkConfig = async (yamlText: string, env: Record<string, string>) => {
  const file = path.join(tempDir(), "gateway.config.yaml");
  fs.writeFileSync(file, yamlText);
  return runCli(["check-config"], file, { env: { ...process.env, ...env } });
};

const STEVE_ENV = { DB_PORT: "3307", DB_PASSWORD: "db-secret-from-env-1", API_PASSWORD: "api-secret-from-env-2", REST_TIMEOUT_MS: "5000", PUBLISH: "false" };
const TMS_ENV = { TMS_KEY: "tms-key-0123456789", TMS_SECRET: "tms-webhook-secret-0123456789", TMS_POLL_MS: "2500", TMS_PAGE: "50" };

describe("adapters' settings from the environment", () => {
  it("steve: a port, milliseconds and a boolean from ${VAR} (and a default) are accepted as such; the passwords stay masked", async () => {
    const result = await checkConfig(steveConfig(), STEVE_ENV);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    // the adapter read the port as a number: it tried that port (the database is not there)
    expect(result.stdout).toContain("127.0.0.1:3307");
    expect(result.stdout).not.toContain(STEVE_ENV.DB_PASSWORD);
    expect(result.stdout).not.toContain(STEVE_ENV.API_PASSWORD);
  });

  it("steve: a value that is no number is refused naming its path, the value not echoed", async () => {
    const result = await checkConfig(steveConfig(), { ...STEVE_ENV, DB_PORT: "db-port-word" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("adapters.steve.database.port:");
    expect(result.stderr).not.toContain("db-port-word");
  });

  it("steve: a value that is no boolean is refused naming its path", async () => {
    const result = await checkConfig(steveConfig(), { ...STEVE_ENV, PUBLISH: "sometimes" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("adapters.steve.locations.publish:");
  });

  it("tms: milliseconds and a page size from ${VAR} are accepted as numbers, and checked as numbers", async () => {
    const result = await checkConfig(tmsConfig(), TMS_ENV);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const tooFast = await checkConfig(tmsConfig(), { ...TMS_ENV, TMS_POLL_MS: "5" });
    expect(tooFast.code).toBe(1);
    expect(tooFast.stderr).toMatch(/adapters\.tms\.poll_interval_ms: must be a whole number of milliseconds between 100/);
  });
});
