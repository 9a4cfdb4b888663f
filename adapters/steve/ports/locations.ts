import { ciKey, type LocationsSenderPort } from "../../kit";
import type { SteveBackend } from "../backend";
import { locationKeys } from "../mapping/locations";
import { loadLocations } from "../poll/locations";
import { fromDatabase } from "../unavailable";

/**
 * Locations from SteVe's charge boxes as they are now. A list is one query
 * over the charge boxes for what orders and filters it (db/charge-boxes.ts
 * `chargeBoxKeys`: one row per box, no EVSEs or status history), then the
 * page's Locations read whole (`loadLocations`: EVSEs, plugs and statuses of
 * those boxes only), so a page of 50 costs the same at 10,000 boxes as at
 * 100. With `publish: false` in the YAML every Location is unpublished, so a
 * list of published ones is empty.
 */
export const locationsSender = (backend: SteveBackend, log: { warn(f: Record<string, unknown>, m: string): void }): LocationsSenderPort => ({
  list: (page) =>
    fromDatabase(async () => {
      const engine = backend.require();
      const now = await engine.db.now();
      const ctx = backend.readContext(engine, now);
      if (page.published && !ctx.mapping.publish) return { items: [], total: 0 };
      const { keys, skipped } = locationKeys(await engine.db.chargeBoxKeys(), ctx.mapping, now);
      for (const s of skipped) log.warn({ location: s.id, reason: s.reason }, "steve: charge box not published as a Location");
      // Locations have no token owner: no scope narrows them. Oldest first, ties by id (pageOf's order).
      const matching = keys
        .filter((k) => (page.dateFrom === undefined || k.lastUpdated >= page.dateFrom) && (page.dateTo === undefined || k.lastUpdated < page.dateTo))
        .sort((a, b) => a.lastUpdated - b.lastUpdated || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const wanted = matching.slice(page.offset, page.offset + page.limit);
      if (wanted.length === 0) return { items: [], total: matching.length };
      const { locations } = await loadLocations(ctx, wanted.map((k) => k.id));
      // A Location gone between the two reads leaves its page one short; the next list has it right.
      return { items: wanted.flatMap((k) => locations.get(k.id) ?? []), total: matching.length };
    }),
  get: (locationId) =>
    fromDatabase(async () => {
      const engine = backend.require();
      const { locations } = await loadLocations(backend.readContext(engine, await engine.db.now()), [locationId]);
      // a CiString: found in any letter case, answered with its own spelling
      return [...locations.values()].find((l) => ciKey(l.id) === ciKey(locationId));
    }),
});
