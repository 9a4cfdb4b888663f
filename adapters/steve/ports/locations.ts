import { ciKey, type LocationsSenderPort } from "../../kit";
import type { SteveBackend } from "../backend";
import { loadLocations } from "../poll/locations";
import { fromDatabase } from "../unavailable";

/**
 * Locations from SteVe's charge boxes. A list takes its page's ids,
 * `total` and rows from what the poller keeps (location-order.ts: binary
 * searches in memory) and maps only the page's Locations, at the time of
 * the request, so a page costs the same at 10,000 boxes as at 100; a GET of
 * one Location reads all its rows now. With
 * `publish: false` in the YAML every Location is unpublished, so a list of
 * published ones is empty.
 */
export const locationsSender = (backend: SteveBackend): LocationsSenderPort => ({
  list: (page) =>
    fromDatabase(async () => {
      const engine = backend.require();
      // a query all the same: a list answers 503 while SteVe's database does not answer, as every read does
      const now = await engine.db.now();
      const ctx = backend.readContext(engine, now);
      if (page.published && !ctx.mapping.publish) return { items: [], total: 0 };
      // Locations have no token owner: no scope narrows them.
      const { ids, total } = await engine.locationOrder.page(page, now);
      if (ids.length === 0) return { items: [], total };
      const { locations } = await loadLocations(ctx, ids, engine.locationOrder);
      // A Location gone since the last poll leaves its page one short; the next poll takes it out of the order.
      return { items: ids.flatMap((id) => locations.get(id) ?? []), total };
    }),
  get: (locationId) =>
    fromDatabase(async () => {
      const engine = backend.require();
      const { locations } = await loadLocations(backend.readContext(engine, await engine.db.clock()), [locationId]);
      // a CiString: found in any letter case, answered with its own spelling
      return [...locations.values()].find((l) => ciKey(l.id) === ciKey(locationId));
    }),
});
