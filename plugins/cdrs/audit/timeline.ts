import type { MeterSample, ReservationTimeline, SessionTimeline } from "../../tariffs/engine";
import type { CdrDimension, ChargingPeriod } from "../model";
import type { AuditedCdr } from "./audited-cdr";
import { instantMs } from "../../tariffs/engine";

/**
 * A CDR's charging periods as the meter timeline the tariff engine prices
 * (OCPI 2.3.0 CDRs, ChargingPeriod: a period lasts until the next one starts,
 * the last until end_date_time). Energy is cumulated from each period's
 * ENERGY volume; a period with PARKING_TIME and no TIME is parked (the first
 * such period after charging ends the charging); RESERVATION_TIME periods are
 * the reservation. Power and current are taken from MAX_/MIN_ dimensions,
 * held for the period. A CDR whose periods carry no ENERGY spreads
 * total_energy over the session.
 */
export interface CdrTimeline {
  session?: SessionTimeline;
  reservation?: ReservationTimeline;
  /** the dimensions present in some period (what restrictions can be decided on) */
  dimensions: Set<string>;
  /** kWh the periods' ENERGY volumes add up to; undefined when no period gives one */
  periodsKwh?: number;
}

const volume = (dimensions: CdrDimension[], ...types: string[]): number | undefined => {
  for (const type of types) {
    const found = dimensions.find((d) => d.type === type);
    if (found) return Number(found.volume);
  }
  return undefined;
};

/** The periods by start, each with its start in epoch ms (parsed once; sorted only when out of order). */
const inOrder = (periods: readonly ChargingPeriod[]): { period: ChargingPeriod; ms: number }[] => {
  const timed = periods.map((period) => ({ period, ms: instantMs(period.start_date_time) }));
  return timed.every((p, i) => i === 0 || timed[i - 1].ms <= p.ms) ? timed : timed.sort((a, b) => a.ms - b.ms);
};

export const timelineOf = (cdr: AuditedCdr): CdrTimeline => {
  // each instant parsed once (each comparison parsed two dates), the periods split in one pass (the Set built from
  // spread arrays was a quarter of the timeline's samples; bench/RESULTS.md "CDR audit")
  const dimensions = new Set<string>();
  const reserved: ChargingPeriod[] = [];
  const used: ChargingPeriod[] = [];
  let firstUsedMs = NaN;
  let lastUsedMs = NaN;
  for (const { period, ms } of inOrder(cdr.charging_periods)) {
    let reservation = false;
    for (const d of period.dimensions) {
      dimensions.add(d.type);
      if (d.type === "RESERVATION_TIME") reservation = true;
    }
    if (reservation) reserved.push(period);
    else {
      if (!used.length) firstUsedMs = ms;
      lastUsedMs = ms;
      used.push(period);
    }
  }

  const timeline: CdrTimeline = { dimensions };
  if (reserved.length) {
    const end = used[0]?.start_date_time ?? cdr.end_date_time;
    timeline.reservation = { start: reserved[0].start_date_time, end, expired: used.length === 0 };
  }
  if (!used.length && reserved.length) return timeline;

  // A CDR's times may be cut to the second while its periods' are not (a period starting within the CDR's last
  // second would end before it starts): the session spans both, and its last period lasts at least a second, so
  // its energy has a time to accrue in (total_time is compared within 0.001 h).
  const first = used[0]?.start_date_time ?? cdr.start_date_time;
  const start = reserved.length || !used.length || !(instantMs(cdr.start_date_time) <= firstUsedMs) ? first : cdr.start_date_time;
  const end = used.length && instantMs(cdr.end_date_time) <= lastUsedMs ? new Date(lastUsedMs + 1000).toISOString() : cdr.end_date_time;
  const byEnergy = dimensions.has("ENERGY");
  const samples: MeterSample[] = [];
  let kwh = 0;
  let chargingEnd: string | undefined;
  used.forEach((period, i) => {
    const parked = period.dimensions.some((d) => d.type === "PARKING_TIME") && !period.dimensions.some((d) => d.type === "TIME");
    if (parked && chargingEnd === undefined && i > 0) chargingEnd = period.start_date_time;
    const sample: MeterSample = { at: period.start_date_time, kwh };
    const power = volume(period.dimensions, "MAX_POWER", "MIN_POWER");
    const current = volume(period.dimensions, "MAX_CURRENT", "MIN_CURRENT");
    if (power !== undefined) sample.power_kw = power;
    if (current !== undefined) sample.current_a = current;
    samples.push(sample);
    kwh += volume(period.dimensions, "ENERGY") ?? 0;
    if (i === used.length - 1) samples.push({ at: end, kwh: byEnergy ? kwh : cdr.total_energy });
  });
  if (!used.length) samples.push({ at: end, kwh: cdr.total_energy });
  timeline.session = { start, end, samples };
  if (chargingEnd) timeline.session.charging_end = chargingEnd;
  if (byEnergy) timeline.periodsKwh = kwh;
  return timeline;
};
