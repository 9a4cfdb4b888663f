import type { z } from "zod";
import type { VersionNumber } from "../protocol/types";

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

/**
 * One protocol object (Location, Session, Credentials…) across versions.
 * The canonical form is OCPI 2.3.0; every other version is translated at the
 * edge with `up` (wire → canonical) and `down` (canonical → wire). Both must
 * accept PATCH fragments, i.e. map only the keys present.
 */
/** Where a missing field may be filled from, when the schema asks for it. */
export type FieldFill =
  /** a constant, when the spec implies it (and `when` holds for the field's parent object) */
  | { from: "value"; value: unknown; when: (parent: Record<string, unknown>) => boolean; why: string }
  /** the same-named field of the party the object came from (its owner, else the partner's party) */
  | { from: "sender" }
  /** the same-named field of the Location the gateway holds under the object's owner and the parent's `id` */
  | { from: "held-location" };

/**
 * What `strictness: repair` may do to an object of one type beyond the repairs every type gets (letter case,
 * numbers and booleans sent as strings, plain strings for DisplayTexts): declared by the module whose type it
 * is, read by the tolerant reader (core/model/repair.ts). Data only.
 */
export interface ObjectRepairs {
  /** where a missing field may be filled from, by its JSON pointer with list indexes as `*` */
  readonly fills?: Readonly<Record<string, FieldFill>>;
  /**
   * values of closed enumerations partners send for a known one, by the field's name (the last key of its
   * pointer): explicit pairs only, no guessing from spelling
   */
  readonly synonyms?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface ObjectType<T = Record<string, unknown>> {
  readonly name: string;
  /** what `strictness: repair` may do to it besides the repairs of every type */
  readonly repairs?: ObjectRepairs;
  schema(version: VersionNumber, mode: BodyMode): z.ZodType;
  up(wire: unknown, version: VersionNumber, tx: TranslationContext): T;
  down(canonical: T, version: VersionNumber, tx: TranslationContext): unknown;
  /**
   * The wire JSON in `version` of the canonical objects whose `JSON.stringify` is `json` (one object, or
   * a JSON array of them), read off the text without parsing it, when `down` would leave each object as
   * it is and drop nothing (2.3.0, the canonical version, for most types); undefined when they have to be
   * parsed and translated. A type without it is always translated.
   */
  wireJson?(json: string, version: VersionNumber): string | undefined;
}
