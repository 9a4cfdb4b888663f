import { ConfigError, parseConfig } from "../../config/load-config";
import { errorOf, TOKEN_MSG, yamlWith } from "./config.fixtures";

/** What a wrong configuration is told: a precise `path: message` per problem, all at once, never a secret value. */
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
      "logging: unknown key (allowed here: server, parties, store, modules, adapters, partners, cache, audit)",
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
      "server.colour: unknown key (allowed here: port, host, public_url, max_page_limit, token_grace_seconds, request_timeout_ms, log_level, hub_party_id, admin_token, command_timeout_seconds, booking_check_interval_ms, inbound, metrics, shutdown_delay_ms, heap_growth_percent, hub)",
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
