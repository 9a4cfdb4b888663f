import type { z } from "zod";
import type { VersionNumber } from "../protocol/types";
import type { FieldIssue } from "../contract/errors";
import type { ObjectRepairs, ObjectType, TranslationContext } from "../contract/object-type";

export const silentTranslation = (params: Record<string, string> = {}): TranslationContext => ({
  dropped: () => undefined,
  params,
});

export interface VersionedTranslator<T> {
  up: (wire: any, tx: TranslationContext) => T;
  down: (canonical: T, tx: TranslationContext) => unknown;
  /** ObjectType.wireJson for this version: the text, when `down` leaves the objects it serialises as they are */
  wireJson?: (json: string) => string | undefined;
}

export interface ObjectTypeDefinition<T> {
  name: string;
  /** what `strictness: repair` may do to it besides the repairs of every type */
  repairs?: ObjectRepairs;
  /** full-object schema per version */
  schemas: Record<VersionNumber, z.ZodType>;
  /** PATCH schema per version; omit for objects that are never patched */
  patchSchemas?: Partial<Record<VersionNumber, z.ZodType>>;
  /** translators for every version other than 2.3.0 */
  translators: Partial<Record<VersionNumber, VersionedTranslator<T>>>;
}

export const defineObjectType = <T>(def: ObjectTypeDefinition<T>): ObjectType<T> => ({
  name: def.name,
  repairs: def.repairs,
  schema(version, mode) {
    const schema = mode === "patch" ? def.patchSchemas?.[version] : def.schemas[version];
    if (!schema) throw new Error(`${def.name} has no ${mode} schema for ${version}`);
    return schema;
  },
  up(wire, version, tx) {
    const translator = def.translators[version];
    return translator ? translator.up(wire, tx) : (wire as T);
  },
  down(canonical, version, tx) {
    const translator = def.translators[version];
    return translator ? translator.down(canonical, tx) : canonical;
  },
  wireJson(json, version) {
    const translator = def.translators[version];
    // no translator: `down` answers the canonical object itself
    return translator ? translator.wireJson?.(json) : json;
  },
});

/** Zod issues as JSON pointers into the body. */
export const issuesOf = (error: z.ZodError): FieldIssue[] =>
  error.issues.map((issue) => ({
    pointer: issue.path.length ? "/" + issue.path.map((p) => String(p)).join("/") : "",
    message: issue.message,
  }));
