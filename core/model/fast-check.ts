import type { z } from "zod";

/**
 * Whether `schema.safeParse(value)` would succeed with an output equal to
 * `value` itself, decided without building that output. Zod copies every
 * object and array it parses and allocates per field: about 11 KB and 7 µs
 * per Location of a pulled page, most of a pull's garbage. This walks the
 * schema's definition once into plain checks and runs zod's own check
 * functions (lengths, patterns, refinements), so the rules stay zod's.
 *
 * True only when sure: a schema with anything that could change the value
 * (transforms, defaults, coercion, overwriting checks, objects that strip
 * unknown keys) or that this does not know is never checked here, and an
 * object with an unknown key where zod would strip or refuse it is not
 * accepted. False means "ask zod", which then gives the output or the issues.
 * Objects keep the sender's key order (zod writes the schema's first).
 * Refinements only read the value, as with zod, where they see its copy.
 */
export const acceptsAsIs = (schema: z.ZodType, value: unknown): boolean => {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = compile(schema) ?? null;
    compiled.set(schema, check);
  }
  return check !== null && check(value);
};

type Check = (value: unknown) => boolean;

/** The parts of zod's internals (`schema._zod`, zod 4) read here. */
interface Internals {
  def: {
    type: string;
    checks?: { _zod: Internals }[];
    coerce?: boolean;
    check?: string;
    when?: (payload: Payload) => boolean;
    innerType?: z.ZodType;
    element?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    catchall?: z.ZodType;
  };
  traits: Set<string>;
  values?: Set<unknown>;
  optin?: string;
  optout?: string;
  check?: (payload: Payload) => unknown;
}

interface Payload {
  value: unknown;
  issues: unknown[];
}

const compiled = new WeakMap<z.ZodType, Check | null>();

const internals = (schema: z.ZodType): Internals => (schema as unknown as { _zod: Internals })._zod;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A check of the value itself, or undefined when the schema is not one this can decide. */
const compile = (schema: z.ZodType): Check | undefined => {
  const zod = internals(schema);
  const { def } = zod;
  if (def.coerce) return undefined;
  let base: Check | undefined;
  switch (def.type) {
    case "string":
      base = (v) => typeof v === "string";
      break;
    case "number":
      base = (v) => typeof v === "number" && Number.isFinite(v);
      break;
    case "boolean":
      base = (v) => typeof v === "boolean";
      break;
    case "enum":
    case "literal": {
      const values = zod.values;
      base = values && ((v) => values.has(v));
      break;
    }
    case "unknown":
    case "any":
      base = () => true;
      break;
    case "optional": {
      // a defaulted inner schema puts a value where there was none
      const inner = internals(def.innerType!).optin === "defaulted" ? undefined : compile(def.innerType!);
      base = inner && ((v) => v === undefined || inner(v));
      break;
    }
    case "array": {
      const element = compile(def.element!);
      base = element && ((v) => Array.isArray(v) && v.every(element));
      break;
    }
    case "object":
      base = compileObject(def.shape ?? {}, def.catchall);
      break;
  }
  if (!base) return undefined;
  const checks = checksOf(zod);
  if (!checks) return undefined;
  if (checks.length === 0) return base;
  const valueCheck = base;
  return (v) => valueCheck(v) && passes(checks, v);
};

/**
 * An object's check: every key of the shape present (or absent where the field may be), unknown keys
 * only where zod keeps them (a catchall of unknown or any), and no own `__proto__`, which zod leaves out.
 * It walks the object's keys, not the shape's (a Location has about 13 of its 30), so a shape key that
 * objects inherit (`constructor`, `toString`…), which zod would find on any object, is not compiled.
 */
const compileObject = (shape: Record<string, z.ZodType>, catchall: z.ZodType | undefined): Check | undefined => {
  const fields = new Map<string, { check: Check; optional: boolean }>();
  for (const [key, field] of Object.entries(shape)) {
    const check = compile(field);
    if (!check || key in Object.prototype) return undefined;
    const { optin, optout } = internals(field);
    fields.set(key, { check, optional: optin === "optional" && optout === "optional" });
  }
  const required = [...fields.values()].filter((f) => !f.optional).length;
  const rest = catchall && internals(catchall).def.type;
  const keepsUnknown = rest === "unknown" || rest === "any";
  // never: zod refuses unknown keys; none: it drops them; either way the value is not its output
  if (rest !== undefined && rest !== "never" && !keepsUnknown) return undefined;
  return (v) => {
    if (!isObject(v) || Object.prototype.hasOwnProperty.call(v, "__proto__")) return false;
    let present = 0;
    for (const key in v) {
      const field = fields.get(key);
      if (field === undefined) {
        if (keepsUnknown) continue;
        return false;
      }
      if (!field.check(v[key])) return false;
      if (!field.optional) present++;
    }
    return present === required;
  };
};

/** The schema's checks in zod's order (the schema itself first when it is one), or undefined when one may change the value. */
const checksOf = (zod: Internals): Internals[] | undefined => {
  const checks = [...(zod.traits.has("$ZodCheck") ? [zod] : []), ...(zod.def.checks ?? []).map((c) => c._zod)];
  return checks.every((c) => c.def.check !== "overwrite" && typeof c.check === "function") ? checks : undefined;
};

/**
 * Runs zod's checks as its parse would on a value without issues; false at the first issue, change or
 * promise (an asynchronous refinement, which zod's synchronous parse refuses in turn). One payload serves
 * every run, emptied first: no check runs another, and a payload each was most of what this allocated.
 */
const passes = (checks: Internals[], value: unknown): boolean => {
  payload.value = value;
  payload.issues.length = 0;
  try {
    for (const check of checks) {
      if (check.def.when && !check.def.when(payload)) continue;
      const result = check.check!(payload);
      if (result instanceof Promise) {
        result.catch(() => undefined);
        return false;
      }
      if (payload.issues.length > 0 || payload.value !== value) return false;
    }
    return true;
  } finally {
    payload.value = undefined;
  }
};

const payload: Payload = { value: undefined, issues: [] };
