import { createHash } from "node:crypto";
import { ciKey } from "../../kit";
import { getJson, setJson } from "../contracts";
import type { ChargeBoxRow, EvseRow } from "../db/rows";
import { locationIdOf, mapLocations, type SteveLocationFacts } from "../mapping/locations";
import type { Location } from "../ocpi";
import { KEYS, type PollContext } from "./context";
import { rememberStatuses } from "./statuses";

/** The charge boxes a Location is made of: its YAML group, or the box of the same id. */
export const boxesOfLocation = (ctx: PollContext, locationId: string): string[] =>
  ctx.mapping.locations.find((g) => ciKey(g.id) === ciKey(locationId))?.charge_boxes ?? [locationId];

export interface LoadedLocations {
  locations: Map<string, Location>;
  chargeBoxes: ChargeBoxRow[];
  evses: EvseRow[];
}

/** SteVe's rows of some charge boxes held in memory (location-order.ts), as of the last poll. */
export interface HeldBoxFacts {
  boxFacts(chargeBoxIds: string[]): SteveLocationFacts;
}

/**
 * Our Locations with the given ids, mapped from SteVe's current rows (or
 * the `held` ones; a Location SteVe cannot fill is left out, logged), with
 * the rows. Ids are CiStrings: the map is keyed by each Location's own id,
 * whatever the spelling asked for (a charge box is found in any letter case by the database's
 * case-insensitive collation, as SteVe's schema has it).
 */
export async function loadLocations(ctx: PollContext, locationIds: string[], held?: HeldBoxFacts): Promise<LoadedLocations> {
  const boxIds = [...new Set(locationIds.flatMap((id) => boxesOfLocation(ctx, id)))];
  const read = async (): Promise<SteveLocationFacts> => {
    const [chargeBoxes, evses, statuses] = await Promise.all([ctx.db.chargeBoxes(boxIds), ctx.db.evses(boxIds), ctx.db.currentStatuses(ctx.now, boxIds)]);
    return { chargeBoxes, evses, statuses };
  };
  const { chargeBoxes, evses, statuses } = held ? held.boxFacts(boxIds) : await read();
  const mapped = mapLocations({ chargeBoxes, evses, statuses }, ctx.mapping, ctx.now);
  for (const skipped of mapped.skipped) ctx.log.warn({ location: skipped.id, reason: skipped.reason }, "steve: charge box not published as a Location");
  const wanted = new Set(locationIds.map(ciKey));
  const locations = new Map(mapped.locations.filter((l) => wanted.has(ciKey(l.id))).map((l) => [l.id, l]));
  return { locations, chargeBoxes, evses };
}

/**
 * What a Location is made of, per charge box, without what changes by
 * itself (heartbeats, update times): SteVe before 3.13 has no updated_at,
 * and from 3.13 a heartbeat may bump updated_at, so the hash, not the
 * time, decides whether the Location changed. Before 3.13 the held
 * Locations list (location-order.ts) compares it too.
 */
export function factsHash(box: ChargeBoxRow, evses: EvseRow[]): string {
  const { lastHeartbeat: _h, updatedAt: _u, ...facts } = box;
  const plugs = evses.map(({ updatedAt: _e, connectors, ...evse }) => ({ ...evse, connectors: connectors.map(({ updatedAt: _c, ...c }) => c) }));
  return createHash("sha256").update(JSON.stringify([facts, plugs])).digest("base64");
}

/** Each candidate's facts' hash as read now, and whether it differs from the one stored (published, or recorded at the first poll). */
async function hashedBoxes(ctx: PollContext, candidates: ChargeBoxRow[]): Promise<{ box: ChargeBoxRow; hash: string; changed: boolean }[]> {
  const evses = await ctx.db.evses(candidates.map((b) => b.chargeBoxId));
  const hashed: { box: ChargeBoxRow; hash: string; changed: boolean }[] = [];
  for (const box of candidates) {
    const hash = factsHash(box, evses.filter((e) => e.chargeBoxId === box.chargeBoxId));
    hashed.push({ box, hash, changed: (await getJson<string>(ctx.kv, KEYS.box(box.chargeBoxId))) !== hash });
  }
  return hashed;
}

/** The first start's baseline: every charge box as it is now counts as published. */
export async function rememberBoxes(ctx: PollContext, boxes: ChargeBoxRow[]): Promise<void> {
  for (const { box, hash, changed } of await hashedBoxes(ctx, boxes)) if (changed) await setJson(ctx.kv, KEYS.box(box.chargeBoxId), hash);
}

/**
 * A Location PUT for every Location one of whose charge boxes changed (or
 * appeared); resolves with every candidate's facts' hash as read, by charge_box_id.
 */
export async function publishLocations(ctx: PollContext, candidates: ChargeBoxRow[]): Promise<Map<string, string>> {
  const hashed = await hashedBoxes(ctx, candidates);
  const hashes = new Map(hashed.map(({ box, hash }) => [box.chargeBoxId, hash]));
  const changed = hashed.filter((h) => h.changed);
  if (changed.length === 0) return hashes;
  const locationIds = [...new Set(changed.map(({ box }) => locationIdOf(ctx.mapping, box.chargeBoxId)))];
  const { locations, chargeBoxes, evses } = await loadLocations(ctx, locationIds);
  for (const location of locations.values()) {
    await ctx.emit({ module: "locations", owner: ctx.owner, path: [location.id], kind: "upsert", object: location as unknown as Record<string, unknown> });
    // The PUT carried the EVSEs' statuses: no PATCH repeats them.
    await rememberStatuses(ctx, (location.evses ?? []).map((e) => ({ uid: e.uid, status: e.status })));
  }
  // The hash of what the PUTs were made of, read after the candidates: a change undone between the two reads differs from it at the next poll.
  for (const box of chargeBoxes) await setJson(ctx.kv, KEYS.box(box.chargeBoxId), factsHash(box, evses.filter((e) => e.chargeBoxId === box.chargeBoxId)));
  return hashes;
}
