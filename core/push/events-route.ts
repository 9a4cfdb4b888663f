import { z } from "zod";
import type { AdminRoute } from "../contract/admin-route";
import type { DataChange } from "../contract/change-feed";
import type { ServedModule } from "../modules/served-modules";
import { OcpiError, invalid, invalidFields } from "../contract/errors";
import { Status } from "../protocol/status";
import { issuesOf } from "../model/object-type";
import { withoutNulls } from "../model/without-nulls";
import { ciString, sameCiString } from "../model/common-schemas";
import { sameParty } from "../protocol/types";
import { changeObjectOf, type ChangeOutcome, type ChangesPort, type PushSpec } from "../contract/push-spec";

const eventSchema = z.strictObject({
  module: z.string({ error: "must be a module id" }).min(1, { error: "must be a module id" }),
  owner: z.strictObject({
    country_code: z.string({ error: "must be 2 letters" }).regex(/^[A-Za-z]{2}$/, { error: "must be 2 letters" }),
    party_id: z.string({ error: "must be 3 letters or digits" }).regex(/^[A-Za-z0-9]{3}$/, { error: "must be 3 letters or digits" }),
  }),
  path: z
    .array(ciString(255).min(1, { error: "must not be empty" }), {
      error: "must be a list of object ids, e.g. [\"LOC1\", \"EVSE1\"]",
    })
    .min(1, { error: "must name at least the object's id" }),
  kind: z.enum(["upsert", "patch", "delete"], { error: "must be one of: upsert, patch, delete" }),
  object: z.record(z.string(), z.unknown(), { error: "must be an object (canonical 2.3.0 form)" }).optional(),
});

/**
 * What the events route needs of a served module: its push spec, our
 * parties serving it, and where a change goes: its adapter's CHANGES port,
 * or else its RECEIVER port (through `spec.apply`), then the change feed.
 */
export interface EventTarget {
  spec: PushSpec;
  parties: ServedModule["parties"];
  port?: ChangesPort;
  receiver?: unknown;
  publish(change: DataChange): Promise<void>;
}

/**
 * POST /admin/v1/events: a backend that cannot report changes in-process
 * (a legacy system behind its adapter) posts them here, one change of our
 * own data per request. The change is checked like a partner's push would
 * be (2001 naming the field), then handed to the CHANGES port of the
 * adapter serving the module, which applies it and publishes it, or, when
 * the adapter has none, stored through the module's RECEIVER port by the
 * rules of a partner's push and published: the answer comes once the
 * pushes are queued.
 */
export const eventsRoute = (targetOf: (module: string) => EventTarget | undefined): AdminRoute => ({
  method: "POST",
  path: "/events",
  handle: async ({ body }) => {
    const parsed = eventSchema.safeParse(body ?? {});
    if (!parsed.success) throw invalidFields(issuesOf(parsed.error));
    const event = parsed.data;
    const target = targetOf(event.module);
    if (!target) throw invalid(`/module: no module ${event.module} with pushes is served here`);
    if (!target.port && (!target.spec.apply || target.receiver === undefined))
      throw invalid(`/module: the adapter serving ${event.module} takes no change events`);
    const owner = { country_code: event.owner.country_code.toUpperCase(), party_id: event.owner.party_id.toUpperCase() };
    if (!target.parties.some((p) => sameParty(p, owner)))
      throw invalid(`/owner: ${owner.country_code}/${owner.party_id} is not one of our parties serving ${event.module}`);
    if (!target.spec.methods[event.kind]) throw invalid(`/kind: ${event.module} changes cannot be ${event.kind}s`);
    if (changeObjectOf(target.spec, event) === undefined)
      throw invalid(
        target.spec.objectOf
          ? `/path: names no ${event.module} object`
          : `/path: ${event.module} objects are at most ${target.spec.objectTypes.length} levels deep`,
      );
    const change: DataChange = { module: event.module, owner, path: event.path, kind: event.kind };
    if (event.kind !== "delete") change.object = checkedObject(event.object, change, target.spec);
    else if (event.object !== undefined) throw invalid("/object: a delete carries no object");
    const outcome = await applyChange(target, change);
    if (!outcome.applied) throw outcome.unknownObject ? new OcpiError(Status.INVALID_PARAMETERS, outcome.reason, 404) : invalid(outcome.reason);
    return { data: null };
  },
});

const applyChange = async (target: EventTarget, change: DataChange): Promise<ChangeOutcome> => {
  if (target.port) return target.port.apply(change);
  const outcome = await target.spec.apply!(target.receiver, change, { party: change.owner });
  if (outcome.applied) await target.publish(change);
  return outcome;
};

/** The object validated as the canonical (2.3.0) object or PATCH fragment at the path's depth, and matching the path. */
const checkedObject = (object: Record<string, unknown> | undefined, change: DataChange, spec: PushSpec): Record<string, unknown> => {
  if (object === undefined) throw invalid(`/object: required for ${change.kind}`);
  const depth = change.path.length;
  const { type, idField, id } = changeObjectOf(spec, change)!;
  const result = type.schema("2.3.0", change.kind === "patch" ? "patch" : "full").safeParse(withoutNulls(object));
  if (!result.success) throw invalidFields(issuesOf(result.error).map((i) => ({ ...i, pointer: `/object${i.pointer}` })));
  const checked = result.data as Record<string, unknown>;
  if (checked[idField] !== undefined && !sameCiString(String(checked[idField]), id)) throw invalid(`/object/${idField} differs from the path's ${id}`);
  if (depth === 1 && !spec.objectOf) {
    for (const field of ["country_code", "party_id"] as const) {
      const value = checked[field];
      if (value !== undefined && String(value).toUpperCase() !== change.owner[field])
        throw invalid(`/object/${field} differs from the owner's ${change.owner[field]}`);
    }
  }
  return checked;
};
