import type { AdminRoute } from "../contract/admin-route";
import type { ServedModule } from "../modules/served-modules";

/**
 * `GET /admin/v1/translation-losses`: in one place, every field the served
 * modules drop when an object goes to an older version. The gateway also
 * logs each one once per partner when it happens (core/model/lossy.ts).
 */
export const translationLossesRoute = (served: readonly ServedModule[]): AdminRoute => ({
  method: "GET",
  path: "/translation-losses",
  handle: async () => {
    const plugins = [...new Set(served.map((s) => s.plugin))];
    return { data: plugins.flatMap((p) => (p.translationLosses ?? []).map((loss) => ({ module: p.module, ...loss }))) };
  },
});
