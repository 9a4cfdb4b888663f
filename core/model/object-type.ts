import type { z } from "zod";
import type { VersionNumber } from "../protocol/types";
import type { FieldIssue } from "../http/errors";

/** How a wire object relates to the canonical model: a whole object (PUT/POST/GET) or a PATCH fragment. */
export type BodyMode = "full" | "patch";

/**
 * Collects what a translation could not carry over, so the kernel can log it
 * once per partner instead of losing it silently (see core/model/lossy.ts).
 */
export interface TranslationContext {
  dropped(field: string, why: string): void;
  /** path parameters of the request, for versions whose objects lack owner fields (2.1.1) */
  params: Record<string, string>;
  /** the owner the kernel derived from the path or the partner's role */
  owner?: { country_code: string; party_id: string };
}

/** One field a version translation cannot carry; every module lists its own (see ModulePlugin.translationLosses). */
export interface TranslationLoss {
  object: string;
  field: string;
  versions: string[];
  why: string;
}

export const silentTranslation = (params: Record<string, string> = {}): TranslationContext => ({
  dropped: () => undefined,
  params,
});

/**
 * One protocol object (Location, Session, Credentials…) across versions.
 * The canonical form is OCPI 2.3.0; every other version is translated at the
 * edge with `up` (wire → canonical) and `down` (canonical → wire). Both must
 * accept PATCH fragments, i.e. map only the keys present.
 */
export interface ObjectType<T = Record<string, unknown>> {
  readonly name: string;
  schema(version: VersionNumber, mode: BodyMode): z.ZodType;
  up(wire: unknown, version: VersionNumber, tx: TranslationContext): T;
  down(canonical: T, version: VersionNumber, tx: TranslationContext): unknown;
}

export interface VersionedTranslator<T> {
  up: (wire: any, tx: TranslationContext) => T;
  down: (canonical: T, tx: TranslationContext) => unknown;
}

export interface ObjectTypeDefinition<T> {
  name: string;
  /** full-object schema per version */
  schemas: Record<VersionNumber, z.ZodType>;
  /** PATCH schema per version; omit for objects that are never patched */
  patchSchemas?: Partial<Record<VersionNumber, z.ZodType>>;
  /** translators for every version other than 2.3.0 */
  translators: Partial<Record<VersionNumber, VersionedTranslator<T>>>;
}

export const defineObjectType = <T>(def: ObjectTypeDefinition<T>): ObjectType<T> => ({
  name: def.name,
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
});

/** Zod issues as JSON pointers into the body. */
export const issuesOf = (error: z.ZodError): FieldIssue[] =>
  error.issues.map((issue) => ({
    pointer: issue.path.length ? "/" + issue.path.map((p) => String(p)).join("/") : "",
    message: issue.message,
  }));
