import type { Tariff, TariffRestrictions } from "../../tariffs/model";
import type { AuditedCdr } from "./audited-cdr";
import type { CdrTimeline } from "./timeline";

/**
 * Which tariff a CDR is re-priced with, and whether it can be: the tariff
 * its charging periods name (`tariff_id`) among those the CDR embeds
 * (`tariffs`, the tariffs as they were at the start), else among the held
 * ones (pulled from the partner or our own); without a name, the one tariff
 * given. Restrictions the CDR cannot decide on make it unpriceable.
 */
export type TariffChoice = { tariff: Tariff; source: "embedded" | "held" } | { unpriceable: string };

const namedIds = (cdr: AuditedCdr): string[] => [...new Set(cdr.charging_periods.map((p) => p.tariff_id).filter((id): id is string => !!id))];

export const chooseTariff = (cdr: AuditedCdr, held: readonly Tariff[]): TariffChoice => {
  const ids = namedIds(cdr);
  const embedded = (cdr.tariffs ?? []) as unknown as Tariff[];
  for (const [source, list] of [["embedded", embedded], ["held", held]] as const) {
    if (!list.length) continue;
    if (ids.length > 1) return { unpriceable: `restriction not supported: the charging periods name ${ids.length} tariffs (${ids.join(", ")}); a session is priced by one` };
    const tariff = ids.length ? list.find((t) => t.id === ids[0]) : list.length === 1 ? list[0] : undefined;
    if (tariff) return { tariff, source };
  }
  if (!embedded.length && !held.length) return { unpriceable: `tariff missing: the CDR embeds no tariffs${ids.length ? ` and tariff ${ids.join(", ")} is not held` : " and names none"}` };
  return { unpriceable: `tariff missing: ${ids.length ? `tariff ${ids[0]} is neither embedded nor held` : "the CDR names no tariff_id and holds several tariffs"}` };
};

const KNOWN = new Set([
  "start_time", "end_time", "start_date", "end_date", "min_kwh", "max_kwh", "min_current", "max_current",
  "min_power", "max_power", "min_duration", "max_duration", "day_of_week", "reservation",
]);
const LOCAL_TIME = ["start_time", "end_time", "start_date", "end_date", "day_of_week"];

const present = (r: TariffRestrictions, key: string): boolean => r[key] !== undefined && r[key] !== null;

/** Why the tariff's restrictions cannot be decided from this CDR, or undefined when they can. */
export const unsupportedRestriction = (tariff: Tariff, timeline: CdrTimeline, timeZoneKnown: boolean): string | undefined => {
  for (const [i, element] of tariff.elements.entries()) {
    const r = element.restrictions;
    if (!r) continue;
    for (const key of Object.keys(r).filter((k) => present(r, k))) {
      if (key === "booking") continue; // booking elements price bookings only; the engine leaves them out
      if (!KNOWN.has(key)) return `restriction not supported: element #${i} has restriction ${key}`;
      if ((key === "min_power" || key === "max_power") && !["MAX_POWER", "MIN_POWER"].some((d) => timeline.dimensions.has(d)))
        return `restriction not supported: element #${i} has ${key}, and the CDR's charging periods give no power`;
      if ((key === "min_current" || key === "max_current") && !["MAX_CURRENT", "MIN_CURRENT"].some((d) => timeline.dimensions.has(d)))
        return `restriction not supported: element #${i} has ${key}, and the CDR's charging periods give no current`;
      if (LOCAL_TIME.includes(key) && !timeZoneKnown)
        return `restriction not supported: element #${i} has ${key} (local time), and the Location's time_zone is not held`;
    }
  }
  return undefined;
};
