import { setJson } from "../contracts";
import type { EvseStatusFacts } from "../db/rows";
import { evseUid } from "../mapping/evse-id";
import { locationIdOf } from "../mapping/locations";
import { evseStatus } from "../mapping/status";
import { iso, KEYS, type PollContext } from "./context";

/** The OCPI status of every EVSE of the given charge boxes, as the mapping decides it now. */
export async function statusesOf(ctx: PollContext, chargeBoxIds: string[]): Promise<{ facts: EvseStatusFacts; uid: string; status: string }[]> {
  const facts = await ctx.db.currentStatuses(ctx.now, chargeBoxIds);
  return facts.map((f) => ({ facts: f, uid: evseUid(f.chargeBoxId, f.evseId), status: evseStatus(f, ctx.now, ctx.mapping.status) }));
}

/** Records statuses as published without publishing them: the first start's baseline, or what a Location PUT carried. */
export async function rememberStatuses(ctx: PollContext, statuses: { uid: string; status: string }[]): Promise<void> {
  for (const s of statuses) await setJson(ctx.kv, KEYS.evseStatus(s.uid), s.status);
}

/**
 * EVSE status PATCHes for the charge boxes that got status rows: one per
 * EVSE whose OCPI status differs from the last one published (a status row
 * that maps to the same OCPI status, e.g. Preparing after Available, is
 * no change to publish).
 */
export async function publishStatuses(ctx: PollContext, chargeBoxIds: string[]): Promise<number> {
  let published = 0;
  for (const { facts, uid, status } of await statusesOf(ctx, chargeBoxIds)) {
    const before = await ctx.kv.get(KEYS.evseStatus(uid));
    if (before !== undefined && JSON.parse(before) === status) continue;
    const changedAt = [facts.latest?.statusTimestamp, facts.station?.statusTimestamp].reduce<Date>((max, d) => (d && d > max ? d : max), new Date(0));
    await ctx.emit({
      module: "locations",
      owner: ctx.owner,
      path: [locationIdOf(ctx.mapping, facts.chargeBoxId), uid],
      kind: "patch",
      object: { status, last_updated: iso(changedAt.getTime() > 0 ? changedAt : ctx.now) },
    });
    await setJson(ctx.kv, KEYS.evseStatus(uid), status);
    published++;
  }
  return published;
}
