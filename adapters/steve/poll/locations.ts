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
 * time, decides whether the Location changed.
 */
function factsHash(box: ChargeBoxRow, evses: EvseRow[]): string {
  const { lastHeartbeat: _h, updatedAt: _u, ...facts } = box;
  const plugs = evses.map(({ updatedAt: _e, connectors, ...evse }) => ({ ...evse, connectors: connectors.map(({ updatedAt: _c, ...c }) => c) }));
  return createHash("sha256").update(JSON.stringify([facts, plugs])).digest("base64");
}

async function changedBoxes(ctx: PollContext, candidates: ChargeBoxRow[]): Promise<{ box: ChargeBoxRow; hash: string }[]> {
  const evses = await ctx.db.evses(candidates.map((b) => b.chargeBoxId));
  const changed: { box: ChargeBoxRow; hash: string }[] = [];
  for (const box of candidates) {
    const hash = factsHash(box, evses.filter((e) => e.chargeBoxId === box.chargeBoxId));
    if ((await getJson<string>(ctx.kv, KEYS.box(box.chargeBoxId))) !== hash) changed.push({ box, hash });
  }
  return changed;
}

/** The first start's baseline: every charge box as it is now counts as published. */
export async function rememberBoxes(ctx: PollContext, boxes: ChargeBoxRow[]): Promise<void> {
  for (const { box, hash } of await changedBoxes(ctx, boxes)) await setJson(ctx.kv, KEYS.box(box.chargeBoxId), hash);
}

/** A Location PUT for every Location one of whose charge boxes changed (or appeared); resolves with those boxes' ids. */
export async function publishLocations(ctx: PollContext, candidates: ChargeBoxRow[]): Promise<string[]> {
  const changed = await changedBoxes(ctx, candidates);
  if (changed.length === 0) return [];
  const locationIds = [...new Set(changed.map(({ box }) => locationIdOf(ctx.mapping, box.chargeBoxId)))];
  const { locations } = await loadLocations(ctx, locationIds);
  for (const location of locations.values()) {
    await ctx.emit({ module: "locations", owner: ctx.owner, path: [location.id], kind: "upsert", object: location as unknown as Record<string, unknown> });
    // The PUT carried the EVSEs' statuses: no PATCH repeats them.
    await rememberStatuses(ctx, (location.evses ?? []).map((e) => ({ uid: e.uid, status: e.status })));
  }
  for (const { box, hash } of changed) await setJson(ctx.kv, KEYS.box(box.chargeBoxId), hash);
  return changed.map(({ box }) => box.chargeBoxId);
}

