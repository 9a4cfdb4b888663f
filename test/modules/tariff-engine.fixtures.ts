/** Example tariffs, session timelines and price readers shared by the tariff engine tests (test/modules/tariff-engine*.test.ts). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { EXAMPLES } from "../support/ocpi-examples";
import { priceSession, type MeterSample, type PricedSession, type SessionTimeline } from "../../plugins/tariffs/engine";
import type { Tariff } from "../../plugins/tariffs/model";

export type Json = Record<string, any>;
export const read = (folder: string, file: string): Json => JSON.parse(readFileSync(path.join(EXAMPLES, folder, file), "utf8"));
export const tariff = (file: string, folder = "2.3.0"): Tariff => read(folder, file) as Tariff;

export const MIN = 60_000;
export const iso = (ms: number): string => new Date(ms).toISOString().replace(".000Z", "Z");

export interface Leg {
  minutes: number;
  kwh: number;
  power_kw?: number;
  current_a?: number;
}

/** A session charging leg after leg (energy linear within a leg), then parked for `parkingMinutes`. */
export const timeline = (start: string, legs: Leg[], parkingMinutes = 0): SessionTimeline => {
  let t = Date.parse(start);
  let kwh = 0;
  const samples: MeterSample[] = [];
  for (const leg of legs) {
    samples.push({ at: iso(t), kwh, power_kw: leg.power_kw, current_a: leg.current_a });
    t += leg.minutes * MIN;
    kwh += leg.kwh;
  }
  samples.push(parkingMinutes ? { at: iso(t), kwh, power_kw: 0, current_a: 0 } : { at: iso(t), kwh });
  return { start, end: iso(t + parkingMinutes * MIN), ...(parkingMinutes ? { charging_end: iso(t) } : {}), samples };
};

export const BERLIN = "Europe/Berlin";
export const price = (t: Tariff, session: SessionTimeline, extra: Partial<Parameters<typeof priceSession>[0]> = {}): PricedSession =>
  priceSession({ tariffs: [t], time_zone: BERLIN, session, ...extra });

export const excl = (p: PricedSession): number => p.total_cost.before_taxes;
export const incl = (p: PricedSession): number =>
  Math.round((p.total_cost.before_taxes + (p.total_cost.taxes ?? []).reduce((s, t) => s + t.amount, 0)) * 10_000) / 10_000;
