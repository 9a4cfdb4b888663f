import "reflect-metadata";
import pino from "pino";
import { stringify } from "yaml";
import { Gateway, StartupError } from "../../app/gateway";
import { maskSecrets } from "../../config/mask-secrets";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";

/**
 * The steve adapter as the gateway creates it, without a database: settings
 * checked before anything is created (what check-config reports), secrets
 * masked in the printed config, tariffs checked as whole 2.3.0 Tariffs, and
 * a SteVe database that is down at start answering 503, not a crash.
 */

const DB_PASSWORD = "factory-db-secret-7f3a";
const API_PASSWORD = "factory-api-secret-91c2";

const settings = (overrides: Record<string, unknown> = {}, dbPort = 3306) => ({
  database: { host: "127.0.0.1", port: dbPort, user: "steve_ro", password: DB_PASSWORD, database: "stevedb" },
  rest: { base_url: "http://127.0.0.1:9/steve", user: "gateway", password: API_PASSWORD },
  poll_interval_ms: 200,
  locations: { country_code: "DE", party_id: "ABC", currency: "EUR" },
  ...overrides,
});

const config = (port: number, steve: Record<string, unknown>) =>
  testGatewayConfig({
    port,
    party: { country_code: "DE", party_id: "ABC", role: "CPO" },
    modules: { locations: { adapter: "steve", roles: ["SENDER"] }, tariffs: { adapter: "steve", roles: ["SENDER"] } },
    adapters: { steve },
    server: { admin_token: "factory-admin-token-0123456789" },
  });

const quiet = pino({ level: "silent" });

afterAll(() => removeTempDirs());

test("invalid adapters.steve settings are start-up errors as path: message, without the values", async () => {
  const [port] = await freePorts(1);
  const bad = settings({ database: { host: "db", port: 70_000, user: "u", password: DB_PASSWORD }, unknown_tags: "sometimes" });
  const error = await Gateway.create(config(port, bad), { logger: quiet }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StartupError);
  expect((error as StartupError).errors).toEqual(
    expect.arrayContaining(["adapters.steve.database.port: must be an integer between 1 and 65535", "adapters.steve.unknown_tags: must be one of: allow, deny, ask_emsp"]),
  );
  expect((error as Error).message).not.toContain(DB_PASSWORD);
});

test("check-config's printed config masks both passwords", async () => {
  const [port] = await freePorts(1);
  const printed = stringify(maskSecrets(config(port, settings())));
  expect(printed).not.toContain(DB_PASSWORD);
  expect(printed).not.toContain(API_PASSWORD);
  expect(printed).toContain("password: \"***\"");
});

test("a tariff that is not a whole 2.3.0 Tariff refuses the start, naming it", async () => {
  const [port] = await freePorts(1);
  const tariff = { id: "T1", currency: "EUR", tax_included: "NO", elements: [{ price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] }], tariff_alt_text: "cheap" };
  const error = await Gateway.create(config(port, settings({ tariffs: [tariff] })), { logger: quiet }).catch((e: unknown) => e);
  expect((error as Error).message).toMatch(/^adapters\.steve\.tariffs\[0\]: \/tariff_alt_text/);
});

test("SteVe's database down at start: the gateway serves, Locations answer 503/3000 naming SteVe, the YAML's tariffs still served; logged once", async () => {
  // A port nobody listens on.
  const [port, deadDb] = await freePorts(2);
  const lines: string[] = [];
  const gateway = await Gateway.create(config(port, settings({}, deadDb)), { logger: pino({ level: "info" }, { write: (l: string) => void lines.push(l) }) });
  try {
    await gateway.listen();
    const token = await gateway.registry.add("probe");
    // The gateway serves (a token A reaches only versions); the ports are asked directly, as no partner is registered here.
    const versions = await ocpiRequest("GET", `http://127.0.0.1:${port}/ocpi/versions`, { token });
    expect(versions.status).toBe(200);
    // Readiness names the adapter whose backend does not answer, nothing more.
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toContain("adapter steve");
    const adapter = (gateway as unknown as { adapters: Map<string, { ports: Record<string, any> }> }).adapters.get("steve")!;
    const ctx = { party: { country_code: "DE", party_id: "ABC" } };
    await expect(adapter.ports["locations.SENDER"].list({ offset: 0, limit: 10 }, ctx)).rejects.toMatchObject({
      httpStatus: 503,
      statusCode: 3000,
      message: "SteVe database unavailable; retry later",
    });
    expect((await adapter.ports["tariffs.SENDER"].list({ offset: 0, limit: 10 }, ctx)).total).toBe(0);
    await new Promise((r) => setTimeout(r, 700));
    const errors = lines.filter((l) => l.includes("steve: database not reachable"));
    expect(errors).toHaveLength(1);
    expect(lines.join("")).not.toContain(DB_PASSWORD);
  } finally {
    await gateway.close();
  }
});
