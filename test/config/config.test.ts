import path from "node:path";
import type { z } from "zod";
import { ConfigError, loadConfig, parseConfig } from "../../config/load-config";
import { maskSecrets } from "../../config/mask-secrets";
import { gatewayConfigSchema } from "../../config/schema";
import type { GatewayConfig } from "../../config/types";
import { errorOf, EXAMPLE, yamlWith } from "./config.fixtures";

// Compile-time: the schema's output is a GatewayConfig.
const _typeCheck = (c: z.output<typeof gatewayConfigSchema>): GatewayConfig => c;
void _typeCheck;

describe("example gateway.config.yaml", () => {
  it("loads, with every default filled in", () => {
    const config: GatewayConfig = loadConfig(EXAMPLE, {});
    expect(config).toEqual({
      server: {
        port: 8080,
        host: "127.0.0.1",
        public_url: "http://localhost:8080",
        max_page_limit: 100,
        token_grace_seconds: 0,
        request_timeout_ms: 10000,
        log_level: "info",
        command_timeout_seconds: 30,
        heap_growth_percent: 100,
      },
      parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Example CPO" } }],
      store: { type: "sqlite", path: "./data/gateway.db" },
      modules: Object.fromEntries(
        ["locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles"].map((m) => [m, { adapter: "local" }]),
      ),
      adapters: { local: { seed: "./examples/seed.json" } },
      partners: [
        {
          id: "example-emsp",
          token_a: "change-me-token-a",
          versions: ["2.3.0", "2.2.1", "2.1.1"],
          token_encoding: "auto",
          header_prefix: "OCPI",
          strictness: "reject",
          callback_hosts: [],
        },
      ],
      cache: { ttl_seconds: { locations: 60, tariffs: 300, tokens: 60, sessions: 10, cdrs: 60 }, max_entries: 1000, redis: true },
      audit: { tolerance: 0.01, tolerance_by_currency: {} },
    });
  });

  it("takes PUBLIC_URL and the partner token from the environment", () => {
    const config = loadConfig(EXAMPLE, { PUBLIC_URL: "https://ocpi.example.com/gw/", EXAMPLE_EMSP_TOKEN_A: "s3cr3t-T0ken" });
    expect(config.server.public_url).toBe("https://ocpi.example.com/gw");
    expect(config.partners[0].token_a).toBe("s3cr3t-T0ken");
  });

  it("reports a missing file as a ConfigError", () => {
    const missing = path.join(__dirname, "does-not-exist.yaml");
    expect(() => loadConfig(missing, {})).toThrow(ConfigError);
    try {
      loadConfig(missing, {});
    } catch (err) {
      expect((err as ConfigError).errors).toEqual([`${missing}: file not found`]);
    }
  });
});

describe("defaults", () => {
  it("fills server, store, modules, adapters and partner defaults of a minimal config", () => {
    const config = parseConfig(
      "server:\n  public_url: https://gw.example.com/\nparties:\n  - { country_code: DE, party_id: AB1, role: EMSP, business_details: { name: X } }\npartners:\n  - id: p1\n",
      {},
    );
    expect(config.server).toEqual({
      port: 8080,
      host: "127.0.0.1",
      public_url: "https://gw.example.com",
      max_page_limit: 100,
      token_grace_seconds: 0,
      request_timeout_ms: 10000,
      log_level: "info",
      command_timeout_seconds: 30,
      heap_growth_percent: 100,
    });
    expect(config.store).toEqual({ type: "sqlite", path: "./data/gateway.db" });
    expect(config.modules).toEqual({});
    expect(config.adapters).toEqual({});
    expect(config.partners).toEqual([
      {
        id: "p1",
        versions: ["2.3.0", "2.2.1", "2.1.1"],
        token_encoding: "auto",
        header_prefix: "OCPI",
        strictness: "reject",
        callback_hosts: [],
      },
    ]);
  });

  it("fills the redis key_prefix and accepts a full module route", () => {
    const config = parseConfig(
      yamlWith((c) => {
        c.store = { type: "redis", url: "rediss://default:pw@redis.internal:6380/1" };
        c.modules = { locations: { adapter: "local", roles: ["SENDER"], parties: ["NLGWY"] } };
        c.partners[0].sync = { locations: "*/15 * * * *" };
        c.partners[0].callback_hosts = ["Callbacks.Partner.Example", "CB.Partner.Example.:8443", "[::1]:9000"];
      }),
      {},
    );
    expect(config.store).toEqual({ type: "redis", url: "rediss://default:pw@redis.internal:6380/1", key_prefix: "ocpi:" });
    expect(config.modules.locations).toEqual({ adapter: "local", roles: ["SENDER"], parties: ["NLGWY"] });
    expect(config.partners[0].sync).toEqual({ locations: "*/15 * * * *" });
    expect(config.partners[0].callback_hosts).toEqual(["callbacks.partner.example", "cb.partner.example:8443", "[::1]:9000"]);
  });

  it("treats empty sections (`partners:`) as absent", () => {
    const config = parseConfig(
      "server: { public_url: 'http://localhost:8080' }\nparties: [{ country_code: NL, party_id: GWY, role: CPO, business_details: { name: X } }]\nstore:\nmodules:\nadapters:\npartners:\n",
      {},
    );
    expect(config.store).toEqual({ type: "sqlite", path: "./data/gateway.db" });
    expect(config.modules).toEqual({});
    expect(config.adapters).toEqual({});
    expect(config.partners).toEqual([]);
  });
});

describe("${ENV} interpolation", () => {
  const text = [
    "server:",
    "  port: ${PORT:-8080}",
    "  public_url: ${SCHEME:-https}://${HOST}/ocpi",
    "parties:",
    "  - country_code: NL",
    "    party_id: GWY",
    "    role: CPO",
    "    business_details: { name: '${NAME-Default Name}' }",
    "partners:",
    "  - id: p",
    "    token_a: '${TOKEN:-fallback-token}'",
    "    versions_url: 'https://partner.example/$${not-a-var}/$path'",
  ].join("\n");

  it("substitutes set variables and uses defaults for unset ones", () => {
    const config = parseConfig(text, { HOST: "gw.example.com" });
    expect(config.server.port).toBe(8080);
    expect(config.server.public_url).toBe("https://gw.example.com/ocpi");
    expect(config.parties[0].business_details.name).toBe("Default Name");
    expect(config.partners[0].token_a).toBe("fallback-token");
    expect(config.partners[0].versions_url).toBe("https://partner.example/${not-a-var}/$path");
  });

  it("prefers set variables over defaults, and converts numeric settings", () => {
    const config = parseConfig(text, { HOST: "h.example", PORT: "9090", SCHEME: "http", TOKEN: "from-env", NAME: "Env Name" });
    expect(config.server.port).toBe(9090);
    expect(config.server.public_url).toBe("http://h.example/ocpi");
    expect(config.parties[0].business_details.name).toBe("Env Name");
    expect(config.partners[0].token_a).toBe("from-env");
  });

  it(":- uses the default for an empty variable, - keeps the empty value", () => {
    const config = parseConfig(text, { HOST: "h.example", TOKEN: "" });
    expect(config.partners[0].token_a).toBe("fallback-token");
    // NAME is set but empty: `${NAME-...}` keeps "", which the name rule rejects
    expect(errorOf(text, { HOST: "h.example", NAME: "" }).errors).toEqual([
      "parties[0].business_details.name: must be 1-100 characters (from ${NAME}; the value is empty)",
    ]);
  });

  it("cannot inject YAML structure", () => {
    const config = parseConfig(text, { HOST: "h.example", NAME: "x: [1, 2]\nfoo: bar" });
    expect(config.parties[0].business_details.name).toBe("x: [1, 2]\nfoo: bar");
  });

  it("names the path and the variable when an unset variable has no default", () => {
    expect(errorOf(text, {}).errors).toEqual([
      "server.public_url: environment variable HOST is not set and has no default (write ${HOST:-default} to give one)",
    ]);
  });

  it("uses the caller's environment, process.env by default", () => {
    const saved = process.env.CONFIG_TEST_HOST;
    process.env.CONFIG_TEST_HOST = "from-process-env.example";
    try {
      const config = parseConfig(text.replace("${HOST}", "${CONFIG_TEST_HOST}"));
      expect(config.server.public_url).toBe("https://from-process-env.example/ocpi");
    } finally {
      if (saved === undefined) delete process.env.CONFIG_TEST_HOST;
      else process.env.CONFIG_TEST_HOST = saved;
    }
  });
});

describe("maskSecrets", () => {
  const config = parseConfig(
    yamlWith((c) => {
      c.store = { type: "redis", url: "redis://default:r3dis-Pa55@redis.internal:6380/2" };
      c.partners.push({ id: "emsp-b", token_a: "another-token-b", versions_url: "https://user:vpass@partner.example/versions" });
      c.adapters = {
        local: {},
        legacy: {
          base_url: "https://svc:svcpass@legacy.internal/api",
          api_key: "ak-123",
          timeout_ms: 5000,
          auth: { username: "gw", password: "pw-456", clientSecret: "cs-789" },
          tokens: ["t1", "t2"],
        },
      };
    }),
    {},
  );

  it("replaces token_a, URL passwords and secret-looking adapter settings with ***", () => {
    const masked = maskSecrets(config);
    expect(masked.partners.map((p) => p.token_a)).toEqual(["***", "***"]);
    expect(masked.store).toEqual({ type: "redis", url: "redis://default:***@redis.internal:6380/2", key_prefix: "ocpi:" });
    expect(masked.partners[1].versions_url).toBe("https://user:***@partner.example/versions");
    expect(masked.adapters).toEqual({
      local: {},
      legacy: {
        base_url: "https://svc:***@legacy.internal/api",
        api_key: "***",
        timeout_ms: 5000,
        auth: { username: "gw", password: "***", clientSecret: "***" },
        tokens: "***",
      },
    });
    const text = JSON.stringify(masked);
    for (const secret of ["token-a-0001", "another-token-b", "r3dis-Pa55", "vpass", "svcpass", "ak-123", "pw-456", "cs-789"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("does not reveal the length and leaves the input untouched", () => {
    const masked = maskSecrets(config);
    expect(masked.partners[0].token_a).toBe(masked.partners[1].token_a);
    expect(config.partners[0].token_a).toBe("token-a-0001");
    expect(config.store).toEqual({ type: "redis", url: "redis://default:r3dis-Pa55@redis.internal:6380/2", key_prefix: "ocpi:" });
    expect(masked.server).toEqual(config.server);
    expect(masked.parties).toEqual(config.parties);
  });

  it("masks a redis URL whose userinfo is only a password", () => {
    const masked = maskSecrets({ ...config, store: { type: "redis", url: "rediss://:onlypass@r.example:6379", key_prefix: "x:" } });
    expect(masked.store).toEqual({ type: "redis", url: "rediss://:***@r.example:6379", key_prefix: "x:" });
  });

  it("keeps a partner without token_a without one", () => {
    const c = parseConfig(yamlWith((x) => delete x.partners[0].token_a), {});
    expect(maskSecrets(c).partners[0]).not.toHaveProperty("token_a");
  });
});

describe("audit", () => {
  const base = "server:\n  public_url: https://gw.example.com/\nparties:\n  - { country_code: DE, party_id: AB1, role: EMSP, business_details: { name: X } }\n";

  it("takes a tolerance and tolerances per currency", () => {
    expect(parseConfig(`${base}audit:\n  tolerance: 0.02\n  tolerance_by_currency: { JPY: 1 }\n`, {}).audit).toEqual({ tolerance: 0.02, tolerance_by_currency: { JPY: 1 } });
  });
});
