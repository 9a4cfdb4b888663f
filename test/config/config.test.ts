import path from "node:path";
import { stringify } from "yaml";
import type { z } from "zod";
import { ConfigError, loadConfig, parseConfig } from "../../config/load-config";
import { maskSecrets } from "../../config/mask-secrets";
import { gatewayConfigSchema } from "../../config/schema";
import type { GatewayConfig } from "../../config/types";

const EXAMPLE = path.join(__dirname, "..", "..", "gateway.config.yaml");
const TOKEN_MSG = "must be 1-64 printable ASCII characters (U+0021-U+007E)";

// Compile-time: the schema's output is a GatewayConfig.
const _typeCheck = (c: z.output<typeof gatewayConfigSchema>): GatewayConfig => c;
void _typeCheck;

/** A small valid configuration, as plain data; tests mutate a copy and turn it into YAML. */
function baseConfig(): Record<string, any> {
  return {
    server: { public_url: "https://gw.example.com/ocpi" },
    parties: [{ country_code: "NL", party_id: "GWY", role: "CPO", business_details: { name: "Example CPO" } }],
    adapters: { local: {} },
    partners: [{ id: "emsp-a", token_a: "token-a-0001" }],
  };
}

function yamlWith(mutate: (c: Record<string, any>) => void): string {
  const c = baseConfig();
  mutate(c);
  return stringify(c);
}

/** The ConfigError thrown by parseConfig (fails the test if nothing is thrown). */
function errorOf(yamlText: string, env: Record<string, string | undefined> = {}): ConfigError {
  try {
    parseConfig(yamlText, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected parseConfig to throw a ConfigError");
}

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

describe("malformed configs are rejected with precise path: message", () => {
  const cases: [string, string, string][] = [
    ["port out of range", yamlWith((c) => (c.server.port = 70000)), "server.port: must be an integer between 1 and 65535"],
    ["port not a number", yamlWith((c) => (c.server.port = "eighty")), "server.port: must be an integer between 1 and 65535, in decimal digits"],
    ["missing public_url", yamlWith((c) => delete c.server.public_url), "server.public_url: is required"],
    [
      "public_url not http(s)",
      yamlWith((c) => (c.server.public_url = "ftp://gw.example.com")),
      "server.public_url: must be an absolute http:// or https:// URL without query string or fragment",
    ],
    ["max_page_limit 0", yamlWith((c) => (c.server.max_page_limit = 0)), "server.max_page_limit: must be an integer between 1 and 10000"],
    [
      "bad hub_party_id",
      yamlWith((c) => (c.server.hub_party_id = "NL-HUB")),
      'server.hub_party_id: must be 2 uppercase letters followed by 3 uppercase letters or digits, e.g. "NLHUB"',
    ],
    ["unknown server key", yamlWith((c) => (c.server.prot = 8080)), 'server.prot: unknown key (did you mean "port"?)'],
    ["no parties", yamlWith((c) => (c.parties = [])), "parties: must list at least one party (the platform's own identity)"],
    [
      "lowercase country_code",
      yamlWith((c) => (c.parties[0].country_code = "nl")),
      "parties[0].country_code: must be exactly 2 uppercase letters (ISO 3166-1 alpha-2)",
    ],
    [
      "4-char party_id",
      yamlWith((c) => (c.parties[0].party_id = "GWYY")),
      "parties[0].party_id: must be exactly 3 uppercase letters or digits (ISO 15118 party id)",
    ],
    [
      "unknown role",
      yamlWith((c) => (c.parties[0].role = "DRIVER")),
      "parties[0].role: must be one of: CPO, EMSP, HUB, NAP, NSP, OTHER, SCSP, PTP",
    ],
    [
      "business name too long",
      yamlWith((c) => (c.parties[0].business_details.name = "N".repeat(101))),
      "parties[0].business_details.name: must be 1-100 characters",
    ],
    [
      "duplicate party",
      yamlWith((c) => c.parties.push(structuredClone(c.parties[0]))),
      "parties[1]: duplicate party: role CPO with country_code NL and party_id GWY is already declared at parties[0]",
    ],
    [
      "duplicate partner ids",
      yamlWith((c) => c.partners.push({ id: "emsp-a", token_a: "token-a-0002" })),
      'partners[1].id: duplicate partner id "emsp-a" (already used by partners[0])',
    ],
    [
      "partner id with a slash",
      yamlWith((c) => (c.partners[0].id = "emsp/a")),
      "partners[0].id: must be 1-64 characters of letters, digits, _ . and -",
    ],
    [
      "token_a with a space",
      yamlWith((c) => c.partners.push({ id: "emsp-b", token_a: "leaky secret" })),
      `partners[1].token_a: ${TOKEN_MSG}`,
    ],
    ["token_a of 65 characters", yamlWith((c) => (c.partners[0].token_a = "T".repeat(65))), `partners[0].token_a: ${TOKEN_MSG}`],
    ["empty token_a", yamlWith((c) => (c.partners[0].token_a = "")), `partners[0].token_a: ${TOKEN_MSG}`],
    [
      "token_a as a YAML number",
      yamlWith((c) => (c.partners[0].token_a = 123456)),
      "partners[0].token_a: must be a string (put the value in quotes)",
    ],
    [
      "two partners sharing a token",
      yamlWith((c) => c.partners.push({ id: "emsp-b", token_a: "token-a-0001" })),
      "partners[1].token_a: same token as partners[0].token_a; every partner needs its own token",
    ],
    [
      "bad token_encoding",
      yamlWith((c) => (c.partners[0].token_encoding = "hex")),
      "partners[0].token_encoding: must be one of: base64, raw, auto",
    ],
    [
      "bad header_prefix",
      yamlWith((c) => (c.partners[0].header_prefix = "X-OCPI")),
      "partners[0].header_prefix: must be one of: OCPI, ROAMING",
    ],
    [
      "unknown version",
      yamlWith((c) => (c.partners[0].versions = ["2.2.1", "2.0"])),
      "partners[0].versions[1]: must be one of: 2.3.0, 2.2.1, 2.1.1",
    ],
    ["empty versions", yamlWith((c) => (c.partners[0].versions = [])), "partners[0].versions: must list at least one version (or be left out to accept all)"],
    [
      "bad versions_url",
      yamlWith((c) => (c.partners[0].versions_url = "partner.example/versions")),
      "partners[0].versions_url: must be an absolute http:// or https:// URL",
    ],
    ["bad strictness", yamlWith((c) => (c.partners[0].strictness = "lenient")), "partners[0].strictness: must be one of: reject, log, repair"],
    [
      "callback host with a scheme",
      yamlWith((c) => (c.partners[0].callback_hosts = ["https://cb.example"])),
      'partners[0].callback_hosts[0]: must be a host like "ocpi.partner.example", optionally with a port ("ocpi.partner.example:8443", "[2001:db8::1]:8443"; no scheme or path)',
    ],
    [
      "callback host with port 0",
      yamlWith((c) => (c.partners[0].callback_hosts = ["cb.example:0"])),
      'partners[0].callback_hosts[0]: must be a host like "ocpi.partner.example", optionally with a port ("ocpi.partner.example:8443", "[2001:db8::1]:8443"; no scheme or path)',
    ],
    [
      "bad cron",
      yamlWith((c) => (c.partners[0].sync = { locations: "every 5 minutes" })),
      'partners[0].sync.locations: must be a valid cron expression (5 or 6 fields, e.g. "*/15 * * * *")',
    ],
    [
      "unknown top-level key",
      yamlWith((c) => (c.partnres = [])),
      'partnres: unknown key (did you mean "partners"?)',
    ],
    [
      "unknown key without a close match",
      yamlWith((c) => (c.logging = { level: "debug" })),
      "logging: unknown key (allowed here: server, parties, store, modules, adapters, partners, cache)",
    ],
    ["store type redis without url", yamlWith((c) => (c.store = { type: "redis" })), "store.url: is required"],
    [
      "redis url with another scheme",
      yamlWith((c) => (c.store = { type: "redis", url: "http://redis.internal:6379" })),
      "store.url: must be a redis:// or rediss:// URL",
    ],
    ["unknown store type", yamlWith((c) => (c.store = { type: "mysql" })), "store.type: must be one of: sqlite, redis, redis-cluster"],
    ["store without type", yamlWith((c) => (c.store = { path: "./x.db" })), "store.type: is required (one of: sqlite, redis, redis-cluster)"],
    [
      "module party not in parties",
      yamlWith((c) => (c.modules = { locations: { adapter: "local", parties: ["DEABC"] } })),
      "modules.locations.parties[0]: party DEABC is not declared in parties (declared: NLGWY)",
    ],
    [
      "module party route without adapter",
      yamlWith((c) => (c.modules = { locations: { adapter: "local", parties: [{ party: "NLGWY" }] } })),
      'modules.locations.parties[0]: must be a party reference ("NLGWY") or { party: NLGWY, adapter: <name> }',
    ],
    [
      "module party route naming an undeclared party",
      yamlWith((c) => (c.modules = { locations: { adapter: "local", parties: [{ party: "DEABC", adapter: "csms" }] } })),
      "modules.locations.parties[0].party: party DEABC is not declared in parties (declared: NLGWY)",
    ],
    [
      "module party listed twice, once with its own adapter",
      yamlWith((c) => (c.modules = { locations: { adapter: "local", parties: ["NLGWY", { party: "NLGWY", adapter: "csms" }] } })),
      "modules.locations.parties[1]: duplicate party (already listed at index 0)",
    ],
    [
      "module id not lowercase",
      yamlWith((c) => (c.modules = { Locations: { adapter: "local" } })),
      "modules.Locations: key must be a module id (lowercase letters, digits and _, starting with a letter, e.g. locations)",
    ],
    [
      "module without adapter",
      yamlWith((c) => (c.modules = { locations: { roles: ["SENDER"] } })),
      "modules.locations.adapter: is required",
    ],
    [
      "duplicate module role",
      yamlWith((c) => (c.modules = { locations: { adapter: "local", roles: ["SENDER", "SENDER"] } })),
      "modules.locations.roles[1]: duplicate role (already listed at index 0)",
    ],
    [
      "bad module role",
      yamlWith((c) => (c.modules = { locations: { adapter: "local", roles: ["SERVER"] } })),
      "modules.locations.roles[0]: must be one of: SENDER, RECEIVER",
    ],
    [
      "unset env var without default",
      yamlWith((c) => (c.partners[0].token_a = "${EMSP_TOKEN}")),
      "partners[0].token_a: environment variable EMSP_TOKEN is not set and has no default (write ${EMSP_TOKEN:-default} to give one)",
    ],
    [
      "YAML syntax error (duplicate key)",
      "server:\n  public_url: http://localhost\nserver:\n  port: 1\n",
      "<inline>: YAML syntax error at line 3, column 1: Map keys must be unique",
    ],
    [
      "YAML syntax error (unclosed flow sequence)",
      "parties: [\n  { country_code: NL }\nserver: {}\n",
      "<inline>: YAML syntax error at line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]",
    ],
    ["empty document", "# nothing here\n", "(root): the configuration is empty"],
  ];

  it("has at least 14 distinct cases", () => {
    expect(new Set(cases.map(([, text]) => text)).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(14);
  });

  it.each(cases)("%s", (_name, text, expected) => {
    const err = errorOf(text);
    expect(err.errors).toEqual([expected]);
    expect(err.message).toContain(expected);
  });
});

describe("ConfigError", () => {
  it("reports every problem at once, one per line", () => {
    const text = yamlWith((c) => {
      c.server.port = 0;
      c.server.colour = "blue";
      c.parties[0].country_code = "NLD";
      c.partners[0].token_a = "${MISSING_TOKEN}";
      c.partners.push({ id: "emsp-a", token_a: "with space", header_prefix: "HTTP" });
      c.store = { type: "redis" };
    });
    const err = errorOf(text);
    const expected = [
      "server.port: must be an integer between 1 and 65535",
      "server.colour: unknown key (allowed here: port, host, public_url, max_page_limit, token_grace_seconds, request_timeout_ms, log_level, hub_party_id, admin_token, command_timeout_seconds, inbound, metrics, shutdown_delay_ms, heap_growth_percent, hub)",
      "parties[0].country_code: must be exactly 2 uppercase letters (ISO 3166-1 alpha-2)",
      "store.url: is required",
      "partners[0].token_a: environment variable MISSING_TOKEN is not set and has no default (write ${MISSING_TOKEN:-default} to give one)",
      `partners[1].token_a: ${TOKEN_MSG}`,
      "partners[1].header_prefix: must be one of: OCPI, ROAMING",
      'partners[1].id: duplicate partner id "emsp-a" (already used by partners[0])',
    ];
    expect([...err.errors].sort()).toEqual([...expected].sort());
    expect(err.name).toBe("ConfigError");
    expect(err.source).toBe("<inline>");
    const lines = err.message.split("\n");
    expect(lines[0]).toBe("Invalid gateway configuration (<inline>), 8 problems:");
    expect(lines.slice(1).map((l) => l.trim()).sort()).toEqual([...expected].sort());
  });

  it("names the file as the source", () => {
    try {
      parseConfig("a: 1\na: 2\n", {}, "conf/gw.yaml");
      throw new Error("not thrown");
    } catch (err) {
      expect((err as ConfigError).errors).toEqual(["conf/gw.yaml: YAML syntax error at line 2, column 1: Map keys must be unique"]);
    }
  });
});

describe("no secret value appears in error messages", () => {
  const SECRET = "Hunter2-Sup3rSecret";

  const leaks: [string, string][] = [
    ["token_a with a space", yamlWith((c) => (c.partners[0].token_a = `${SECRET} x`))],
    ["token_a too long", yamlWith((c) => (c.partners[0].token_a = SECRET.repeat(4)))],
    ["token_a with non-ASCII", yamlWith((c) => (c.partners[0].token_a = `${SECRET}é`))],
    ["shared token_a", yamlWith((c) => c.partners.push({ id: "emsp-b", token_a: c.partners[0].token_a = SECRET }))],
    ["redis url with password, wrong scheme", yamlWith((c) => (c.store = { type: "redis", url: `http://user:${SECRET}@r:6379` }))],
    ["versions_url with userinfo, bad", yamlWith((c) => (c.partners[0].versions_url = `ftp://u:${SECRET}@p.example/v`))],
    ["bad escape in a quoted token", `partners:\n  - id: p\n    token_a: "${SECRET}\\q"\n`],
    ["broken placeholder in a token", yamlWith((c) => (c.partners[0].token_a = `${SECRET}\${oops`))],
    ["malformed placeholder in a token", yamlWith((c) => (c.partners[0].token_a = `\${${SECRET} x}`))],
    ["secret from the environment", yamlWith((c) => (c.partners[0].token_a = "${TOKEN_FROM_ENV}"))],
    ["adapter secrets next to another error", yamlWith((c) => {
      c.adapters = { legacy: { api_key: SECRET, password: SECRET, nested: { client_secret: SECRET } } };
      c.server.port = -1;
    })],
  ];

  it.each(leaks)("%s", (_name, text) => {
    const err = errorOf(text, { TOKEN_FROM_ENV: `${SECRET} with space` });
    expect(err.errors.length).toBeGreaterThan(0);
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain("Hunter2");
    for (const line of err.errors) expect(line).not.toContain("Hunter2");
  });

  it("the token_a error names the path only", () => {
    const err = errorOf(yamlWith((c) => c.partners.push({ id: "b", token_a: "bad token text" })));
    expect(err.errors).toEqual([`partners[1].token_a: ${TOKEN_MSG}`]);
    expect(err.message).not.toContain("bad token text");
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
