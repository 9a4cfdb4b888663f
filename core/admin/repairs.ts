import type { AdminRoute } from "../contract/admin-route";
import type { TolerantReader } from "../model/tolerant-reader";

/**
 * `GET /admin/v1/repairs`: what `strictness: repair` repaired in partners'
 * objects since this instance started, per partner, object type, field and
 * repair, with how often (core/model/tolerant-reader.ts). The gateway also
 * logs each one once when it first happens.
 */
export const repairsRoute = (reader: TolerantReader): AdminRoute => ({
  method: "GET",
  path: "/repairs",
  handle: async () => ({ data: reader.repairs() }),
});
