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
export interface ObjectType<T = Record<string, unknown>> {
  readonly name: string;
  schema(version: VersionNumber, mode: BodyMode): z.ZodType;
  up(wire: unknown, version: VersionNumber, tx: TranslationContext): T;
  down(canonical: T, version: VersionNumber, tx: TranslationContext): unknown;
}
