/**
 * zod issues of the config schema as human `path: message` lines: the place
 * named as `partners[1].token_a`, the message saying what is expected and never
 * echoing the offending value (it may be a token, a password or a URL with
 * credentials), an unknown key answered with the key it most likely meant.
 */
import type { z } from "zod";
import { withNotation, type LooseIssue } from "./schema-messages";
import { discriminatedOption, isObj, unwrap, type AnySchema } from "./typed-strings";

/** `["partners", 1, "token_a"]` -> `partners[1].token_a`; odd keys are quoted: `adapters["my adapter"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else {
      const s = String(seg);
      if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) out += out === "" ? s : `.${s}`;
      else out += `[${JSON.stringify(s)}]`;
    }
  }
  return out === "" ? "(root)" : out;
}

function typeName(expected: string | undefined): string {
  switch (expected) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "int":
      return "an integer";
    case "boolean":
      return "true or false";
    case "object":
    case "record":
      return "a mapping (key: value pairs)";
    case "array":
    case "tuple":
      return "a list";
    default:
      return expected ? `of type ${expected}` : "of another type";
  }
}

function quoteList(values: readonly unknown[]): string {
  return values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");
}

/**
 * Per-parse zod error map: human messages for zod's generic issues. Schema-level
 * messages (config/schema/blocks.ts) take precedence. Never mentions the input value.
 */
export function humanIssueMessage(iss: LooseIssue): string | undefined {
  const input = iss.input;
  switch (iss.code) {
    case "invalid_type":
      if (input === undefined) return "is required";
      if (input === null) return "must not be empty";
      if (iss.expected === "string" && (typeof input === "number" || typeof input === "boolean"))
        return "must be a string (put the value in quotes)";
      return typeof input === "string" ? withNotation(`must be ${typeName(iss.expected)}`, iss.expected) : `must be ${typeName(iss.expected)}`;
    case "invalid_value": {
      if (input === undefined) return "is required";
      if (input === null) return "must not be empty";
      const values = (iss.values as unknown[] | undefined) ?? [];
      return values.length === 1 ? `must be ${quoteList(values)}` : `must be one of: ${quoteList(values)}`;
    }
    case "too_small": {
      const min = Number(iss.minimum);
      if (iss.origin === "string") return min <= 1 ? "must not be empty" : `must be at least ${min} characters long`;
      if (iss.origin === "array" || iss.origin === "set") return min <= 1 ? "must not be an empty list" : `must have at least ${min} items`;
      return iss.inclusive === false ? `must be greater than ${min}` : `must be at least ${min}`;
    }
    case "too_big": {
      const max = Number(iss.maximum);
      if (iss.origin === "string") return `must be at most ${max} characters long`;
      if (iss.origin === "array" || iss.origin === "set") return `must have at most ${max} items`;
      return iss.inclusive === false ? `must be less than ${max}` : `must be at most ${max}`;
    }
    case "invalid_format":
      return iss.format === "url" ? "must be a valid URL" : "has an invalid format";
    case "not_multiple_of":
      return `must be a multiple of ${String(iss.divisor)}`;
    case "unrecognized_keys":
      return "unknown key";
    case "invalid_union":
      if (typeof iss.discriminator === "string") {
        const options = (iss.options as unknown[] | undefined) ?? [];
        const present = isObj(input) && input[iss.discriminator] !== undefined;
        return present ? `must be one of: ${quoteList(options)}` : `is required (one of: ${quoteList(options)})`;
      }
      return "does not match any of the allowed forms";
    case "invalid_key":
      return "is not an allowed key";
    default:
      return undefined;
  }
}

// --- unknown-key suggestions -------------------------------------------------

/** The object schema at `path` (following the data through discriminated unions), or undefined. */
function objectSchemaAt(root: AnySchema, path: readonly PropertyKey[], data: unknown): AnySchema | undefined {
  let s = unwrap(root);
  let d: unknown = data;
  const pick = (): boolean => {
    if (s._zod.def.type !== "union") return true;
    const option = discriminatedOption(s, d);
    if (option) s = option;
    return option !== undefined;
  };
  for (const seg of path) {
    if (!pick()) return undefined;
    const def = s._zod.def as unknown as Record<string, unknown> & { type: string };
    if (def.type === "object") {
      const shape = def.shape as Record<string, AnySchema>;
      if (!(String(seg) in shape)) return undefined;
      s = unwrap(shape[String(seg)]);
    } else if (def.type === "array") s = unwrap(def.element as AnySchema);
    else if (def.type === "record") s = unwrap(def.valueType as AnySchema);
    else return undefined;
    d = isObj(d) || Array.isArray(d) ? (d as Record<string, unknown>)[seg as string] : undefined;
  }
  if (!pick()) return undefined;
  return s._zod.def.type === "object" ? s : undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions: "prot" -> "port" is 1). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const dist = k.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key.toLowerCase(), k.toLowerCase());
    if (dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  if (best !== undefined && bestDistance <= Math.max(1, Math.min(3, Math.floor(best.length / 3)))) {
    return `unknown key (did you mean "${best}"?)`;
  }
  return known.length > 0 ? `unknown key (allowed here: ${known.join(", ")})` : "unknown key";
}

/** One `path: message` line per problem of a failed parse of `input` by `root`, without repeats. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root: AnySchema, input: unknown): string[] {
  const errors: string[] = [];
  for (const iss of issues) {
    if (iss.code === "unrecognized_keys") {
      const objectSchema = objectSchemaAt(root, iss.path, input);
      const known = objectSchema
        ? Object.keys((objectSchema._zod.def as unknown as { shape: Record<string, unknown> }).shape)
        : [];
      for (const key of iss.keys) errors.push(`${formatPath([...iss.path, key])}: ${unknownKeyMessage(key, known)}`);
    } else if (iss.code === "invalid_key") {
      const inner = iss.issues[0]?.message;
      errors.push(`${formatPath(iss.path)}: ${inner ? `key ${inner}` : "is not an allowed key"}`);
    } else {
      errors.push(`${formatPath(iss.path)}: ${iss.message}`);
    }
  }
  return [...new Set(errors)];
}
