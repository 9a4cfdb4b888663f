import { ciKey, type Location, type LocationsSenderPort } from "../../kit";
import type { SteveBackend } from "../backend";
import { mapLocations } from "../mapping/locations";
import { loadLocations } from "../poll/locations";
import { fromDatabase } from "../unavailable";
import { pageOf } from "./transactions";

/**
 * Locations from SteVe's charge boxes as they are now (one query per table
 * per list: fine for thousands of boxes, not for a hundred thousand). With
 * `publish: false` in the YAML every Location is unpublished, so a list of
 * published ones is empty.
 */
export const locationsSender = (backend: SteveBackend, log: { warn(f: Record<string, unknown>, m: string): void }): LocationsSenderPort => ({
  list: (page, ctx) =>
    fromDatabase(async () => {
      const { db } = backend.require();
      const now = await db.now();
      const mapping = backend.readContext(backend.require(), now).mapping;
      if (page.published && !mapping.publish) return { items: [], total: 0 };
      const [chargeBoxes, evses, statuses] = await Promise.all([db.chargeBoxes(), db.evses(), db.currentStatuses(now)]);
      const mapped = mapLocations({ chargeBoxes, evses, statuses }, mapping, now);
      for (const skipped of mapped.skipped) log.warn({ location: skipped.id, reason: skipped.reason }, "steve: charge box not published as a Location");
      // Locations have no token owner: the scope does not narrow them.
      return pageOf<Location>(mapped.locations, page, { ...ctx, scope: undefined });
    }),
  get: (locationId) =>
    fromDatabase(async () => {
      const engine = backend.require();
      const { locations } = await loadLocations(backend.readContext(engine, await engine.db.now()), [locationId]);
      // a CiString: found in any letter case, answered with its own spelling
      return [...locations.values()].find((l) => ciKey(l.id) === ciKey(locationId));
    }),
});
