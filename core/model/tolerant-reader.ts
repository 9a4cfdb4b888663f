import type { z } from "zod";
import type { Logger } from "pino";
import type { Strictness } from "../../config/types";
import type { PartyRef } from "../protocol/types";
import type { FieldIssue } from "../contract/errors";
import { issuesOf } from "./object-type";
import { withoutNulls } from "./without-nulls";
import { acceptsAsIs } from "./fast-check";
import { repairObject, type Repair, type RepairSource, type RepairedType } from "./repair";

/** One object a partner sent us: a receiver body, an item of a pulled list, an answer to our request. */
export interface PartnerObject {
  partnerId: string;
  strictness: Strictness;
  /** the object's type: its name (e.g. "Location") and the repairs its module declares */
  type: RepairedType;
  /** the wire schema of the partner's version */
  schema: z.ZodType;
  raw: unknown;
  /** the party it came from, when the object names no owner of its own */
  sender?: PartyRef;
  /** where its log lines go (a request's logger); default the gateway's */
  log?: Logger;
}

export type ReadResult = { ok: true; value: unknown } | { ok: false; issues: FieldIssue[] };

/** How often one repair was done since this instance started. */
export interface RepairCount {
  partner: string;
  type: string;
  field: string;
  repair: string;
  count: number;
}

/**
 * The tolerant reader: every object a partner sends enters through here,
 * whatever the way (receiver bodies, sync pulls, answers to our requests),
 * read under the partner's `strictness` in one place. Nulls are absence
 * (OCPI 2.2.1 Types). Invalid objects are refused under `reject`, accepted
 * as they are under `log`, and under `repair` repaired (core/model/repair.ts)
 * and accepted once valid. Each repair is logged once per partner, object
 * type, field and repair, and counted (`GET /admin/v1/repairs`): never silent.
 */
export class TolerantReader {
  private readonly counts = new Map<string, RepairCount>();

  constructor(
    private readonly log: Logger,
    private readonly source: Pick<RepairSource, "heldLocation"> = {},
  ) {}

  async read(object: PartnerObject): Promise<ReadResult> {
    const cleaned = withoutNulls(object.raw);
    // most objects are valid as they came: taken without zod building a copy of each (fast-check.ts)
    if (acceptsAsIs(object.schema, cleaned)) return { ok: true, value: cleaned };
    const parsed = object.schema.safeParse(cleaned);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issues = issuesOf(parsed.error);
    if (object.strictness === "log") {
      (object.log ?? this.log).warn({ partner: object.partnerId, issues }, `accepted an invalid ${object.type.name} (strictness: log)`);
      return { ok: true, value: cleaned };
    }
    if (object.strictness !== "repair") return { ok: false, issues };
    const outcome = await repairObject(object.type, object.schema, cleaned, { ...this.source, sender: object.sender });
    if (!outcome.ok) return outcome;
    for (const repair of outcome.repairs) this.count(object, repair);
    return { ok: true, value: outcome.value };
  }

  /** Every repair done, per partner, object type and field. */
  repairs(): RepairCount[] {
    return [...this.counts.values()].map((c) => ({ ...c }));
  }

  private count(object: PartnerObject, repair: Repair): void {
    const key = [object.partnerId, object.type.name, repair.field, repair.action].join("\u0000");
    const known = this.counts.get(key);
    if (known) {
      known.count++;
      return;
    }
    this.counts.set(key, { partner: object.partnerId, type: object.type.name, field: repair.field, repair: repair.action, count: 1 });
    (object.log ?? this.log).warn(
      { partner: object.partnerId, type: object.type.name, field: repair.field, repair: repair.action },
      "field repaired (strictness: repair)",
    );
  }
}
