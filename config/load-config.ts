/**
 * Loads gateway.config.yaml: YAML parsing, `${ENV}` interpolation, validation.
 *
 * Interpolation happens after YAML parsing, on string scalars only, so an
 * environment variable can never inject YAML structure:
 *   ${NAME}            value of NAME; an error when NAME is not set
 *   ${NAME:-default}   default when NAME is unset or empty
 *   ${NAME-default}    default when NAME is unset
 *   $${                a literal "${"
 *
 * Values are strings then; where the schema expects a number or a boolean the
 * string is read as one (config/typed-strings.ts), and an error at such a value
 * names the variables it came from: `server.port: … (from ${PORT})`.
 *
 * Every problem is collected and thrown at once as a ConfigError. Messages never
 * contain configuration values (they may be tokens, passwords or URLs with
 * credentials), only paths like `partners[1].token_a`.
 */
import { readFileSync } from "node:fs";
import { LineCounter, parseDocument } from "yaml";
import type { GatewayConfig } from "./types";
import { formatPath } from "./issue-format";
import { validateConfigObject } from "./schema";

export class ConfigError extends Error {
  /** one `path: message` line per problem */
  readonly errors: string[];
  /** file name, or "<inline>" */
  readonly source: string;

  constructor(errors: string[], source = "<inline>") {
    const n = errors.length;
    super(`Invalid gateway configuration (${source}), ${n} problem${n === 1 ? "" : "s"}:\n${errors.map((e) => `  ${e}`).join("\n")}`);
    this.name = "ConfigError";
    this.errors = errors;
    this.source = source;
  }
}

type Env = Record<string, string | undefined>;
type Path = (string | number)[];

/** Reads, interpolates and validates a YAML config file. Throws ConfigError. */
export function loadConfig(file: string, env: Env = process.env): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === "ENOENT" ? "file not found" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "is a directory" : `cannot read file (${code ?? "unknown error"})`;
    throw new ConfigError([`${file}: ${reason}`], file);
  }
  return parseConfig(text, env, file);
}

/** Parses, interpolates and validates YAML text. Throws ConfigError. */
export function parseConfig(yamlText: string, env: Env = process.env, source = "<inline>"): GatewayConfig {
  const raw = parseYaml(yamlText, source);
  const { value, errors: envErrors, failedPaths, interpolated } = interpolateEnv(raw, env);
  const result = validateConfigObject(value);
  const errors = [...envErrors];
  if (!result.ok) {
    // A value whose placeholder could not be resolved already has its error; don't add "invalid value" noise for it.
    const prefixes = failedPaths.map((p) => formatPath(p));
    const origins = new Map(interpolated.map((leaf) => [formatPath(leaf.path), originNote(leaf)]));
    for (const e of result.errors) {
      if (prefixes.some((p) => e.startsWith(`${p}:`) || e.startsWith(`${p}.`) || e.startsWith(`${p}[`))) continue;
      const origin = origins.get(e.slice(0, e.indexOf(": ")));
      errors.push(origin ? `${e} ${origin}` : e);
    }
  }
  if (errors.length > 0) throw new ConfigError(errors, source);
  if (!result.ok) throw new ConfigError(result.errors, source); // unreachable, keeps the types honest
  return result.config;
}

// ---------------------------------------------------------------------------
// YAML
// ---------------------------------------------------------------------------

/** YAML parser messages without anything copied from the source text. */
function safeYamlMessage(code: string, message: string): string {
  if (code === "BAD_DQ_ESCAPE") return "invalid escape sequence in a double-quoted string";
  // a few messages append a piece of the source after ": "; drop it
  const cut = message.indexOf(": ");
  const text = cut >= 0 ? message.slice(0, cut) : message;
  return text.replace(/\s+/g, " ").trim();
}

function parseYaml(text: string, source: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true, uniqueKeys: true, strict: true });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map((e) => {
        const pos = e.linePos?.[0] ?? (Array.isArray(e.pos) ? lineCounter.linePos(e.pos[0]) : undefined);
        const where = pos ? ` at line ${pos.line}, column ${pos.col}` : "";
        return `${source}: YAML syntax error${where}: ${safeYamlMessage(e.code, e.message)}`;
      }),
      source,
    );
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    // e.g. an alias to an unknown anchor, or an alias bomb
    const m = err instanceof Error ? safeYamlMessage("", err.message) : "cannot convert the document";
    throw new ConfigError([`${source}: YAML error: ${m}`], source);
  }
}

// ---------------------------------------------------------------------------
// ${ENV} interpolation
// ---------------------------------------------------------------------------

/** A string of the tree that held placeholders, and where its value came from (never the value: it may be a secret). */
export interface InterpolatedLeaf {
  path: Path;
  /** each placeholder's variable, and whether its default stood in for it */
  sources: { name: string; fromDefault: boolean }[];
  /** the result is empty or only whitespace */
  blank: boolean;
}

interface InterpolationResult {
  value: unknown;
  errors: string[];
  failedPaths: Path[];
  /** every string that held at least one placeholder and resolved */
  interpolated: InterpolatedLeaf[];
}

/**
 * `(from ${PORT})`, `(from a placeholder's default; the value is empty)`: appended to an error at an interpolated
 * value. Only a variable set in the environment is named: what stands between `${` and `}` unresolved may be a
 * secret pasted there by mistake.
 */
function originNote(leaf: InterpolatedLeaf): string {
  const sources = [...new Set(leaf.sources.map((s) => (s.fromDefault ? "a placeholder's default" : `\${${s.name}}`)))].join(", ");
  return `(from ${sources}${leaf.blank ? "; the value is empty" : ""})`;
}

const PLACEHOLDER_RE = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([\s\S]*))?$/;

/** Replaces `${NAME}` / `${NAME:-default}` in every string scalar of the tree (keys are left alone). */
export function interpolateEnv(tree: unknown, env: Env = process.env): InterpolationResult {
  const errors: string[] = [];
  const failedPaths: Path[] = [];
  const interpolated: InterpolatedLeaf[] = [];

  const fail = (path: Path, message: string) => {
    errors.push(`${formatPath(path)}: ${message}`);
    failedPaths.push(path);
  };

  const interpolateString = (s: string, path: Path): string => {
    if (!s.includes("$")) return s;
    let out = "";
    let i = 0;
    let failed = false;
    const sources: InterpolatedLeaf["sources"] = [];
    while (i < s.length) {
      const j = s.indexOf("$", i);
      if (j < 0) {
        out += s.slice(i);
        break;
      }
      out += s.slice(i, j);
      if (s.startsWith("$${", j)) {
        out += "${";
        i = j + 3;
        continue;
      }
      if (s[j + 1] !== "{") {
        out += "$";
        i = j + 1;
        continue;
      }
      const end = s.indexOf("}", j + 2);
      if (end < 0) {
        if (!failed) fail(path, 'unterminated "${" placeholder (write "$${" for a literal "${")');
        failed = true;
        break;
      }
      const m = PLACEHOLDER_RE.exec(s.slice(j + 2, end));
      i = end + 1;
      if (!m) {
        if (!failed) fail(path, 'malformed placeholder: use ${NAME} or ${NAME:-default}, where NAME is letters, digits and _ (write "$${" for a literal "${")');
        failed = true;
        continue;
      }
      const [, name, op, fallback] = m;
      const current = Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
      const fromDefault = op === ":-" ? current === undefined || current === "" : op === "-" ? current === undefined : false;
      if (!op && current === undefined) {
        fail(path, `environment variable ${name} is not set and has no default (write \${${name}:-default} to give one)`);
        failed = true;
        continue;
      }
      out += fromDefault ? fallback : (current as string);
      sources.push({ name, fromDefault });
    }
    if (!failed && sources.length > 0) interpolated.push({ path, sources, blank: out.trim() === "" });
    return out;
  };

  const walk = (node: unknown, path: Path): unknown => {
    if (typeof node === "string") return interpolateString(node, path);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (typeof node === "object" && node !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) {
        // defineProperty: a "__proto__" key stays a plain (and then rejected) key
        Object.defineProperty(out, k, { value: walk(v, [...path, k]), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return node;
  };

  return { value: walk(tree, []), errors, failedPaths, interpolated };
}
