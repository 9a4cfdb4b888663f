import type { z } from "zod";

/**
 * The one walker over the zod schemas of OCPI objects: what the schema
 * expects at a path (the tolerant reader's repairs, core/model/repair.ts)
 * and which optional fields an object type has (send_nulls_for_optional).
 * It reads zod 4's schema definitions (`_zod.def`), which is how zod itself
 * walks them (e.g. for JSON Schema output).
 */

type Schema = z.ZodType;
type Def = { type: string; innerType?: Schema; in?: Schema; shape?: Record<string, Schema>; element?: Schema; options?: Schema[]; getter?: () => Schema };

const defOf = (schema: Schema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Wrappers that change neither the object's shape nor its fields: optional, nullable, default, readonly, lazy, the input side of a pipe. */
export const unwrap = (schema: Schema): Schema => {
  for (let current = schema; ; ) {
    const def = defOf(current);
    const inner = def.innerType ?? def.in ?? def.getter?.();
    if (!inner || !["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch", "pipe", "lazy"].includes(def.type))
      return current;
    current = inner;
  }
};

/** The fields of an object schema (after unwrapping), or undefined when it is not an object. */
export const shapeOf = (schema: Schema): Record<string, Schema> | undefined => {
  const def = defOf(unwrap(schema));
  return def.type === "object" ? def.shape : undefined;
};

/** The element schema of a list schema (after unwrapping), or undefined. */
export const elementOf = (schema: Schema): Schema | undefined => {
  const def = defOf(unwrap(schema));
  return def.type === "array" ? def.element : undefined;
};

/** The schema a value at `path` (zod issue path: keys and list indexes) is checked against; undefined where the schema says nothing. */
export const schemaAt = (schema: Schema, path: readonly PropertyKey[]): Schema | undefined => {
  let current: Schema | undefined = schema;
  for (const step of path) {
    if (!current) return undefined;
    current = typeof step === "number" ? elementOf(current) : fieldOf(current, String(step));
  }
  return current;
};

const fieldOf = (schema: Schema, key: string): Schema | undefined => {
  const def = defOf(unwrap(schema));
  if (def.type === "object") return def.shape?.[key];
  // A union of objects (rare in OCPI): the first member that knows the key.
  if (def.type === "union") for (const option of def.options ?? []) if (shapeOf(option)?.[key]) return shapeOf(option)![key];
  return undefined;
};

/** A field that may be left out of its object (OCPI cardinality `?` or `*`). */
export const isOptional = (schema: Schema): boolean => schema.safeParse(undefined).success;

/** OCPI's DisplayText (Part A §16.x, OCPI 2.2.1 Types): the one object type made of exactly `language` and `text`. */
export const isDisplayText = (schema: Schema): boolean => {
  const shape = shapeOf(schema);
  return shape !== undefined && Object.keys(shape).sort().join() === "language,text";
};

/**
 * `value` with every optional field its schema declares present: absent
 * ones as `null` (which OCPI reads as absent, OCPI 2.2.1 Types), and a list
 * (cardinality `*`) absent or null as `[]`, recursively in the objects and
 * lists it carries. For partners whose frameworks require every key
 * (`partners[].send_nulls_for_optional`): those that declare a list field
 * refuse a null there as well ("Input should be a valid list"), and an
 * empty list says the same as none. Other present values and unknown
 * properties are kept as they are.
 */
export const withNullsForOptional = (schema: Schema, value: unknown): unknown => {
  if (Array.isArray(value)) {
    const element = elementOf(schema);
    return element ? value.map((item) => withNullsForOptional(element, item)) : value;
  }
  const shape = value !== null && typeof value === "object" ? shapeOf(schema) : undefined;
  if (!shape) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, field] of Object.entries(shape)) {
    if (out[key] === undefined || out[key] === null) {
      if (isOptional(field)) out[key] = elementOf(field) ? [] : null;
    } else out[key] = withNullsForOptional(field, out[key]);
  }
  return out;
};

/**
 * A whole object (PUT, POST) we send a partner, with every optional field
 * present when the partner's config asks for it (`send_nulls_for_optional`).
 * PATCH fragments are sent as they are: there a key names a field that
 * changed, and a null would clear it.
 */
export const bodyForPartner = (
  partner: { send_nulls_for_optional?: boolean },
  method: string,
  schema: () => Schema,
  body: unknown,
): unknown => (partner.send_nulls_for_optional && method !== "PATCH" && body !== undefined ? withNullsForOptional(schema(), body) : body);
