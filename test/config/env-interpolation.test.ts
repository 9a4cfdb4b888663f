import { stringify } from "yaml";
import type { z } from "zod";
import { ConfigError, parseConfig } from "../../config/load-config";
import { gatewayConfigSchema } from "../../config/schema";

/**
 * Numbers and booleans from `${ENV}` (README "Config reference"): every number and boolean key of the schema,
 * found by walking the schema itself, is set from a variable and read typed; a value that is neither is
 * refused naming the path and the variable, never the value.
 */

type Schema = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };
type Path = (string | number)[];
interface Leaf {
  path: Path;
  kind: "number" | "boolean";
  /** a value the schema accepts here */
  sample: number;
  /** the store type this key belongs to, when it is a store option */
  variant?: string;
}

const defOf = (s: Schema): Def => s._zod.def as unknown as Def;
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);
const SCALARS = new Set(["string", "enum", "literal", "unknown", "never"]);
/** the key used for records (modules, cache.ttl_seconds): a module id */
const RECORD_KEY = "locations";

/** Every number and boolean leaf of a schema; fails on a construct it does not know, so none is skipped unseen. */
function leavesOf(schema: Schema, path: Path = [], variant?: string): Leaf[] {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return leavesOf(def.innerType as Schema, path, variant);
  if (def.type === "pipe") {
    const inner = def.in as Schema;
    return leavesOf(defOf(inner).type === "transform" ? (def.out as Schema) : inner, path, variant);
  }
  switch (def.type) {
    case "object":
      return Object.entries(def.shape as Record<string, Schema>).flatMap(([k, v]) => leavesOf(v, [...path, k], variant));
    case "array":
      return leavesOf(def.element as Schema, [...path, 0], variant);
    case "record":
      expect((def.keyType as z.ZodType).safeParse(RECORD_KEY).success).toBe(true);
      return leavesOf(def.valueType as Schema, [...path, RECORD_KEY], variant);
    case "union": {
      const disc = def.discriminator as string | undefined;
      return (def.options as Schema[]).flatMap((o) => {
        if (!disc) return leavesOf(o, path, variant);
        const shape = defOf(o).shape as Record<string, Schema>;
        const tag = (defOf(shape[disc]).values as string[])[0];
        return leavesOf(o, path, tag);
      });
    }
    case "number": {
      const n = schema as unknown as z.ZodNumber;
      const lo = n.minValue ?? 0;
      const hi = n.maxValue ?? lo + 1000;
      // the middle of the range: not a default, and headers_timeout_ms <= request_timeout_ms holds
      const sample = n.isInt ? Math.floor((lo + hi) / 2) : Math.min(hi, (lo + hi) / 2 + 0.25);
      return [{ path, kind: "number", sample, variant }];
    }
    case "boolean":
      return [{ path, kind: "boolean", sample: 1, variant }];
    default:
      if (!SCALARS.has(def.type)) throw new Error(`the test does not know zod type ${def.type} (at ${path.join(".")})`);
      return [];
  }
}

const STORES: Record<string, Record<string, unknown>> = {
  sqlite: { type: "sqlite" },
  redis: { type: "redis", url: "redis://127.0.0.1:6379" },
  "redis-cluster": { type: "redis-cluster", nodes: ["redis://127.0.0.1:7000"] },
};

function baseConfig(store = STORES.sqlite): Record<string, any> {
  return {
    server: { public_url: "https://gw.example.com/ocpi" },
    parties: [
      {
        country_code: "NL",
        party_id: "GWY",
        role: "CPO",
        // logo's required keys, so its width and height can be set
        business_details: { name: "Example CPO", logo: { url: "https://gw.example.com/logo.png", category: "OPERATOR", type: "png" } },
      },
    ],
    store: structuredClone(store),
    partners: [{ id: "emsp-a", token_a: "token-a-0001" }],
  };
}

function setAt(tree: Record<string, any>, path: Path, value: unknown): void {
  let node: any = tree;
  path.slice(0, -1).forEach((seg, i) => {
    if (node[seg] === undefined || node[seg] === null || typeof node[seg] !== "object") node[seg] = typeof path[i + 1] === "number" ? [] : {};
    node = node[seg];
  });
  node[path[path.length - 1]] = value;
}

const getAt = (tree: unknown, path: Path): unknown => path.reduce<any>((node, seg) => node?.[seg], tree);

function errorsOf(yamlText: string, env: Record<string, string>): string[] {
  try {
    parseConfig(yamlText, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).errors;
  }
  throw new Error("expected parseConfig to throw a ConfigError");
}

describe("every number and boolean key from ${ENV}", () => {
  const leaves = leavesOf(gatewayConfigSchema);
  const keys = leaves.map((l) => `${l.variant ? `[${l.variant}] ` : ""}${l.path.join(".")}`);

  it("finds the keys in the schema itself", () => {
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(
      expect.arrayContaining([
        "server.port",
        "server.inbound.max_header_bytes",
        "server.metrics.port",
        "server.hub.offline_after_ms",
        "parties.0.business_details.logo.width",
        "[sqlite] store.busy_timeout_ms",
        "[redis] store.generation_lease_ms",
        "[redis-cluster] store.replica_ack_timeout_ms",
        "partners.0.send_nulls_for_optional",
        "partners.0.forward",
        "partners.0.sync_retry.retries",
        "partners.0.push.concurrency",
        "cache.ttl_seconds.locations",
        "cache.redis",
      ]),
    );
    expect(leaves.length).toBeGreaterThanOrEqual(35);
  });

  const variants = [...new Set(leaves.map((l) => l.variant).filter((v): v is string => v !== undefined))];
  const cases = variants.flatMap((variant) => [
    [variant, "true"],
    [variant, "False"],
  ]);

  it.each(cases)("store %s, booleans %s: each key is read typed from its variable", (variant, bool) => {
    const config = baseConfig(STORES[variant]);
    const env: Record<string, string> = {};
    const mine = leaves.filter((l) => l.variant === undefined || l.variant === variant);
    mine.forEach((leaf, i) => {
      setAt(config, leaf.path, `\${V${i}}`);
      env[`V${i}`] = leaf.kind === "boolean" ? bool : String(leaf.sample);
    });
    const loaded = parseConfig(stringify(config), env);
    for (const leaf of mine) {
      const want = leaf.kind === "boolean" ? bool.toLowerCase() === "true" : leaf.sample;
      expect({ key: leaf.path.join("."), value: getAt(loaded, leaf.path) }).toEqual({ key: leaf.path.join("."), value: want });
    }
  });
});

describe("numbers and booleans as strings", () => {
  const withPort = (port: string) => {
    const c = baseConfig();
    c.server.port = port;
    return stringify(c);
  };
  const PORT_RULE = "server.port: must be an integer between 1 and 65535";

  it.each([
    ["8080", 8080],
    [" 8080\n", 8080],
    ["+8080", 8080],
    ["08080", 8080],
  ])("PORT=%j is %d", (value, want) => {
    expect(parseConfig(withPort("${PORT}"), { PORT: value }).server.port).toBe(want);
  });

  it.each([
    ["1e3", `${PORT_RULE}, in decimal digits (from \${PORT})`],
    ["0x10", `${PORT_RULE}, in decimal digits (from \${PORT})`],
    ["1_000", `${PORT_RULE}, in decimal digits (from \${PORT})`],
    ["Infinity", `${PORT_RULE}, in decimal digits (from \${PORT})`],
    ["80 80", `${PORT_RULE}, in decimal digits (from \${PORT})`],
    ["", `${PORT_RULE}, in decimal digits (from \${PORT}; the value is empty)`],
    [" \t", `${PORT_RULE}, in decimal digits (from \${PORT}; the value is empty)`],
    ["-5", `${PORT_RULE} (from \${PORT})`],
    ["1.5", `${PORT_RULE} (from \${PORT})`],
    ["70000", `${PORT_RULE} (from \${PORT})`],
  ])("PORT=%j is refused", (value, message) => {
    expect(errorsOf(withPort("${PORT}"), { PORT: value })).toEqual([message]);
  });

  it("names every variable of the value, and a default without the name of its unset variable", () => {
    expect(errorsOf(withPort("${PORT:-80a}"), {})).toEqual([`${PORT_RULE}, in decimal digits (from a placeholder's default)`]);
    expect(parseConfig(withPort("${HI}${LO}"), { HI: "80", LO: "81" }).server.port).toBe(8081);
    expect(errorsOf(withPort("${HI}${LO}"), { HI: "80", LO: "x" })).toEqual([`${PORT_RULE}, in decimal digits (from \${HI}, \${LO})`]);
  });

  it("reads decimals and refuses negatives where the range says so", () => {
    const c = baseConfig();
    c.cache = { ttl_seconds: { locations: "${TTL}" } };
    expect(parseConfig(stringify(c), { TTL: "0.5" }).cache?.ttl_seconds.locations).toBe(0.5);
    expect(errorsOf(stringify(c), { TTL: "-1" })).toEqual([
      "cache.ttl_seconds.locations: must be a number of seconds between 0 and 86400 (0: not cached) (from ${TTL})",
    ]);
  });

  it("refuses a boolean that is neither true nor false, naming the path and the variable but not the value", () => {
    const c = baseConfig();
    c.partners[0].send_nulls_for_optional = "${NULLS}";
    c.partners[0].forward = "${FORWARD}";
    c.cache = { redis: "${CACHE_REDIS:-yes}" };
    const errors = errorsOf(stringify(c), { NULLS: "Hunter2-secret", FORWARD: "1" });
    expect(errors.sort()).toEqual([
      "cache.redis: must be true or false (from a placeholder's default)",
      "partners[0].forward: must be true, false or a list of partner ids (from ${FORWARD})",
      "partners[0].send_nulls_for_optional: must be true or false (from ${NULLS})",
    ]);
    expect(errors.join("\n")).not.toContain("Hunter2");
    const loaded = parseConfig(stringify(c), { NULLS: "TRUE", FORWARD: "false", CACHE_REDIS: "false" });
    expect([loaded.partners[0].send_nulls_for_optional, loaded.partners[0].forward, loaded.cache?.redis]).toEqual([true, false, false]);
  });

  it("keeps strings where the schema expects a string, digits and all", () => {
    const c = baseConfig();
    c.partners[0].token_a = "${TOKEN}";
    c.parties[0].business_details.name = "${NAME}";
    c.server.public_url = "http://gw.example.com:${PORT}/ocpi";
    c.server.host = "${HOST}";
    const loaded = parseConfig(stringify(c), { TOKEN: "123456", NAME: "true", PORT: "8443", HOST: "0" });
    expect(loaded.partners[0].token_a).toBe("123456");
    expect(loaded.parties[0].business_details.name).toBe("true");
    expect(loaded.server.public_url).toBe("http://gw.example.com:8443/ocpi");
    expect(loaded.server.host).toBe("0");
  });

  it("reads a quoted literal like the same text from a variable: writing the value for its placeholder changes nothing", () => {
    const quoted = 'server: { public_url: "https://gw.example.com", port: "8080" }\nparties: [{ country_code: NL, party_id: GWY, role: CPO, business_details: { name: X } }]\npartners: [{ id: p, send_nulls_for_optional: "true" }]\ncache: { redis: "false" }\n';
    const loaded = parseConfig(quoted, {});
    expect([loaded.server.port, loaded.partners[0].send_nulls_for_optional, loaded.cache?.redis]).toEqual([8080, true, false]);
    // without a placeholder, the error has no "(from …)"
    expect(errorsOf(quoted.replace('"true"', '"yes"'), {})).toEqual(["partners[0].send_nulls_for_optional: must be true or false"]);
  });
});
