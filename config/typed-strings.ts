/**
 * Strings read as numbers and booleans where a zod schema expects one.
 *
 * `${ENV}` interpolation always yields strings (an environment variable has no
 * type), and an operator may quote a value out of habit (`port: "8080"`). Before
 * validation the config tree is walked beside its schema: a string where the
 * schema takes a number (and no string) is read as a decimal number, one where
 * it takes a boolean as true/false. What the schema expects decides, so a new
 * number or boolean key needs nothing here, and a string key keeps its digits
 * (`token_a: ${TOKEN}` with TOKEN=123456 stays the string "123456").
 *
 * A string that does not read is left as it is, for the schema to refuse with
 * the key's own message (never echoing the value).
 */
import type { z } from "zod";

export type AnySchema = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };

const defOf = (s: AnySchema): Def => s._zod.def as unknown as Def;
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Decimal notation only: `1e3`, `0x10`, `1_000`, `.5`, `Infinity` are not numbers here (README "Config reference"). */
const DECIMAL_RE = /^[+-]?\d+(?:\.\d+)?$/;

/** The number a string spells in decimal digits (surrounding whitespace ignored), else undefined. */
export function numberFromString(s: string): number | undefined {
  const t = s.trim();
  return DECIMAL_RE.test(t) ? Number(t) + 0 : undefined; // + 0: "-0" is 0
}

/** true / false in any case (surrounding whitespace ignored), else undefined; not yes/no/1/0. */
export function booleanFromString(s: string): boolean | undefined {
  const t = s.trim().toLowerCase();
  return t === "true" ? true : t === "false" ? false : undefined;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"]);

/** The schema that judges the data: through optional/default/… wrappers, a preprocess to its target, a transform to its source. */
export function unwrap(schema: AnySchema): AnySchema {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(s);
    if (WRAPPERS.has(def.type)) s = def.innerType as AnySchema;
    else if (def.type === "lazy") s = (def.getter as () => AnySchema)();
    else if (def.type === "pipe") {
      const inner = def.in as AnySchema;
      s = defOf(inner).type === "transform" ? (def.out as AnySchema) : inner;
    } else break;
  }
  return s;
}

/** The option of a discriminated union `data` belongs to (by its discriminator's value), unwrapped; undefined when none. */
export function discriminatedOption(union: AnySchema, data: unknown): AnySchema | undefined {
  const def = defOf(union);
  const disc = def.discriminator as string | undefined;
  if (!disc || !isObj(data)) return undefined;
  for (const option of def.options as AnySchema[]) {
    const o = unwrap(option);
    const lit = (defOf(o).shape as Record<string, AnySchema> | undefined)?.[disc];
    const values = lit ? ((defOf(unwrap(lit)).values as unknown[] | undefined) ?? []) : [];
    if (values.includes(data[disc])) return o;
  }
  return undefined;
}

/** Kinds of data that never take a string: a union of only these (and numbers/booleans) reads a string as one of the latter. */
const NO_STRING = new Set(["number", "boolean", "object", "array", "record", "tuple", "null", "undefined", "never", "nan"]);

/** The unwrapped options of a union, nested unions flattened. */
function optionsOf(union: AnySchema): AnySchema[] {
  return (defOf(union).options as AnySchema[]).flatMap((o) => {
    const u = unwrap(o);
    return defOf(u).type === "union" ? optionsOf(u) : [u];
  });
}

function readScalar(kinds: ReadonlySet<string>, s: string): unknown {
  if (kinds.has("number")) {
    const n = numberFromString(s);
    if (n !== undefined) return n;
  }
  if (kinds.has("boolean")) {
    const b = booleanFromString(s);
    if (b !== undefined) return b;
  }
  return s;
}

function readUnion(union: AnySchema, value: unknown): unknown {
  const options = optionsOf(union);
  if (typeof value === "string") {
    const kinds = new Set(options.map((o) => defOf(o).type));
    return [...kinds].every((k) => NO_STRING.has(k)) ? readScalar(kinds, value) : value;
  }
  const picked = discriminatedOption(union, value);
  if (picked) return readTypedStrings(picked, value);
  // Otherwise only when a single option has the data's shape (a list, or a mapping).
  const shaped = options.filter((o) => (Array.isArray(value) ? ["array", "tuple"] : isObj(value) ? ["object", "record"] : []).includes(defOf(o).type));
  return shaped.length === 1 ? readTypedStrings(shaped[0], value) : value;
}

/** Builds a plain object without letting a "__proto__" key set the prototype (the schema then rejects the key). */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * A copy of `value` with each string read as a number or boolean where `schema` expects one (see the file's
 * comment); everything else, the input included, is left as it is.
 */
export function readTypedStrings(schema: AnySchema, value: unknown): unknown {
  const s = unwrap(schema);
  const def = defOf(s);
  switch (def.type) {
    case "number":
    case "boolean":
      return typeof value === "string" ? readScalar(new Set([def.type]), value) : value;
    case "union":
      return readUnion(s, value);
    case "intersection":
      return readTypedStrings(def.right as AnySchema, readTypedStrings(def.left as AnySchema, value));
    case "array":
      return Array.isArray(value) ? value.map((item) => readTypedStrings(def.element as AnySchema, item)) : value;
    case "tuple": {
      const items = def.items as AnySchema[];
      return Array.isArray(value) ? value.map((item, i) => (i < items.length ? readTypedStrings(items[i], item) : item)) : value;
    }
    case "record":
      return isObj(value) ? objectOf(Object.entries(value).map(([k, v]) => [k, readTypedStrings(def.valueType as AnySchema, v)])) : value;
    case "object": {
      if (!isObj(value)) return value;
      const shape = def.shape as Record<string, AnySchema>;
      const rest = def.catchall as AnySchema | undefined;
      return objectOf(
        Object.entries(value).map(([k, v]) => {
          const field = Object.prototype.hasOwnProperty.call(shape, k) ? shape[k] : rest;
          return [k, field ? readTypedStrings(field, v) : v];
        }),
      );
    }
    default:
      return value;
  }
}
