import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import path from "node:path";
import { parseSync } from "@swc/core";

/**
 * The layering README "How it is built" promises, checked on the source:
 * every import and `export … from` of the product's folders, type-only ones
 * and `import("…")` types included, resolved to files of the repository.
 */
const ROOT = path.join(__dirname, "..");
const LAYERS = ["core", "plugins", "adapters", "app", "config"];

const sourceFiles = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [relative] : [];
  });

/** Every module specifier a file names, found by walking its syntax tree. */
const specifiersOf = (file: string): string[] => {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== "object" || node === null) return;
    const n = node as Record<string, any>;
    if ((n.type === "ImportDeclaration" || n.type === "ExportAllDeclaration" || n.type === "ExportNamedDeclaration") && n.source) found.push(n.source.value);
    if (n.type === "TsImportType") found.push(n.argument.value);
    if (n.type === "CallExpression" && (n.callee?.type === "Import" || n.callee?.value === "require") && n.arguments?.[0]?.expression?.type === "StringLiteral")
      found.push(n.arguments[0].expression.value);
    Object.values(n).forEach(visit);
  };
  visit(parseSync(readFileSync(path.join(ROOT, file), "utf8"), { syntax: "typescript", decorators: true }).body);
  return found;
};

/** A relative specifier as a repository path ("core/contract/module-plugin.ts"); undefined for packages and node built-ins. */
const resolve = (from: string, specifier: string): string | undefined => {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.posix.join(path.posix.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, `${base}/index.ts`, base])
    if (existsSync(path.join(ROOT, candidate)) && statSync(path.join(ROOT, candidate)).isFile()) return candidate;
  throw new Error(`${from}: cannot resolve ${specifier}`);
};

const files = LAYERS.flatMap(sourceFiles);
const imports = new Map(files.map((file) => [file, [...new Set(specifiersOf(file).map((s) => resolve(file, s)).filter((f): f is string => !!f))]]));

const edgesWhere = (from: (file: string) => boolean, to: (file: string) => boolean): string[] =>
  files.filter(from).flatMap((file) => imports.get(file)!.filter(to).map((target) => `${file} → ${target}`));

const under = (...folders: string[]) => (file: string) => folders.some((folder) => file.startsWith(`${folder}/`));


/**
 * core/'s floor plan, ground floor first (README "How it is built"): a folder
 * may import the folders below it, never one above it, and no two folders
 * import each other. Contracts and vocabulary are the ground floor; the HTTP
 * host that mounts everything is the top.
 */
const CORE_FLOORS = [
  "protocol",
  "contract",
  "model",
  "http",
  "logging",
  "store",
  "partners",
  "client",
  "outbox",
  "edge",
  "cache",
  "modules",
  "async",
  "push",
  "sync",
  "hub",
  "versions",
  "health",
  "metrics",
  "admin",
  "host",
];
/** Imports allowed to point up the plan, each with its reason; at most 3 (issue #24). */
const UPWARD_ALLOWED: readonly string[] = [];

const coreFolderOf = (file: string): string | undefined => (file.startsWith("core/") ? file.split("/")[1] : undefined);
const coreArrows = (): Map<string, string[]> => {
  const arrows = new Map<string, string[]>();
  for (const file of files.filter(under("core")))
    for (const target of imports.get(file)!) {
      const from = coreFolderOf(file)!;
      const to = coreFolderOf(target);
      if (!to || to === from) continue;
      const key = `${from} → ${to}`;
      arrows.set(key, [...(arrows.get(key) ?? []), `${file} → ${target}`]);
    }
  return arrows;
};
const floorOf = (folder: string): number => CORE_FLOORS.indexOf(folder);

describe("architecture", () => {
  it("finds the imports it checks", () => {
    expect(imports.get("app/gateway.ts")).toContain("core/contract/module-plugin.ts");
    expect(imports.get("adapters/local/locations.ts")).toContain("adapters/kit.ts");
  });

  it("has no import cycle, type-only imports included", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const walk = (file: string): void => {
      state.set(file, "open");
      stack.push(file);
      for (const next of imports.get(file) ?? []) {
        if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next].join(" → "));
        else if (!state.has(next)) walk(next);
      }
      stack.pop();
      state.set(file, "done");
    };
    files.forEach((file) => state.has(file) || walk(file));
    expect(cycles).toEqual([]);
  });

  it("every core file sits in a folder of the floor plan", () => {
    const outside = files.filter(under("core")).filter((file) => file.split("/").length < 3 || floorOf(coreFolderOf(file)!) < 0);
    expect(outside).toEqual([]);
  });

  it("no core folder imports one above it (but the few allowed, each with a reason)", () => {
    const upward = [...coreArrows().entries()].filter(([key]) => {
      const [from, to] = key.split(" → ");
      return floorOf(to) > floorOf(from) && !UPWARD_ALLOWED.includes(key);
    });
    expect(upward.flatMap(([, edges]) => edges)).toEqual([]);
    expect(UPWARD_ALLOWED.length).toBeLessThanOrEqual(3);
  });

  it("no two core folders import each other", () => {
    const arrows = coreArrows();
    const mutual = [...arrows.keys()].filter((key) => arrows.has(key.split(" → ").reverse().join(" → ")));
    expect(mutual).toEqual([]);
  });

  it("core/protocol imports nothing outside itself; core/contract only core/protocol (and config/types)", () => {
    expect(edgesWhere(under("core/protocol"), (target) => !target.startsWith("core/protocol/"))).toEqual([]);
    expect(edgesWhere(under("core/contract"), (target) => !target.startsWith("core/protocol/") && !target.startsWith("core/contract/") && target !== "config/types.ts")).toEqual([]);
  });

  it("prints the floor plan's figures: arrows between core folders, upward ones, mutual pairs", () => {
    const arrows = coreArrows();
    const keys = [...arrows.keys()];
    const figures = {
      arrows: keys.length,
      upward: keys.filter((key) => floorOf(key.split(" → ")[1]) > floorOf(key.split(" → ")[0])).length,
      mutualPairs: keys.filter((key) => arrows.has(key.split(" → ").reverse().join(" → "))).length / 2,
    };
    console.log(`core floor plan: ${JSON.stringify(figures)}`);
    expect(figures.upward).toBeLessThanOrEqual(3);
    expect(figures.mutualPairs).toBe(0);
  });

  it("a store's optional capabilities are found on the Store port (core/contract/store.ts), never by casting to an implementation", () => {
    const implementations = (target: string) => ["core/store/redis-store.ts", "core/store/sqlite-store.ts"].includes(target);
    expect(edgesWhere((file) => !file.startsWith("core/store/"), implementations)).toEqual([]);
    const casts = files.filter((file) => /\bas (Partial<Pick<RedisStore|\{ *(sharedReads|scriptOnOneRedis)|(RedisStore|SqliteStore)\b(?!\.))/.test(readFileSync(path.join(ROOT, file), "utf8")));
    expect(casts).toEqual([]);
  });

  it("the kernel never names a module: no module id is written in core/ outside its vocabulary (core/protocol)", () => {
    const MODULE_IDS = ["credentials", "locations", "sessions", "cdrs", "tariffs", "tokens", "commands", "chargingprofiles", "hubclientinfo", "payments", "bookings"];
    const literal = new RegExp(`["'\`](${MODULE_IDS.join("|")})["'\`]`);
    const named = files
      .filter((file) => under("core")(file) && !file.startsWith("core/protocol/"))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), "utf8")
          .split("\n")
          .map((line, i) => ({ line: line.replace(/\/\/.*$/, ""), at: `${file}:${i + 1}` }))
          .filter(({ line }) => !/^\s*(\*|\/\*)/.test(line) && literal.test(line))
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
    expect(named).toEqual([]);
  });

  it("no source file is over 400 lines (code, tests, benches, scripts)", () => {
    const everything = [...LAYERS, "test", "bench", "scripts"].flatMap((dir) =>
      readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
        .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name))),
    );
    expect(everything.length).toBeGreaterThan(400);
    const long = everything.filter((file) => readFileSync(path.join(ROOT, file), "utf8").split("\n").length > 401).map((file) => `${file}: ${readFileSync(path.join(ROOT, file), "utf8").split("\n").length - 1} lines`);
    expect(long).toEqual([]);
  });

  it("core/ imports nothing from plugins/, adapters/ or app/", () => {
    expect(edgesWhere(under("core"), under("plugins", "adapters", "app"))).toEqual([]);
  });

  it("config/ imports from core/ only the protocol vocabulary (core/protocol)", () => {
    expect(edgesWhere(under("config"), (target) => target.startsWith("core/") && !target.startsWith("core/protocol/"))).toEqual([]);
  });

  it("plugins/ import nothing from adapters/ or app/", () => {
    expect(edgesWhere(under("plugins"), under("adapters", "app"))).toEqual([]);
  });

  it("an adapter imports from the repository only the kit (adapters/kit.ts) and its own folder", () => {
    const adapterOf = (file: string) => file.split("/")[1];
    const outside = files
      .filter((file) => file.startsWith("adapters/") && file !== "adapters/kit.ts")
      .flatMap((file) =>
        imports.get(file)!.filter((target) => target !== "adapters/kit.ts" && !target.startsWith(`adapters/${adapterOf(file)}/`)).map((target) => `${file} → ${target}`),
      );
    expect(outside).toEqual([]);
  });
});
