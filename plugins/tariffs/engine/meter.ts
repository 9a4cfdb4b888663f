import type { MeterSample, SessionTimeline } from "./types";
import { instantMs } from "./instant";

/**
 * A session's meter readings as functions of time: energy interpolated
 * linearly between samples, power and current held from one sample to the
 * next (a step function, as OCPP MeterValues report them).
 */
export interface Meter {
  /** kWh delivered from the session start to `ms` */
  energyAt(ms: number): number;
  powerAt(ms: number): number | undefined;
  currentAt(ms: number): number | undefined;
  /** instants at which the power or current may change */
  sampleTimes: number[];
  /** instants at which the delivered energy reaches `kwh` (rising) */
  crossings(kwh: number): number[];
}

interface Point {
  ms: number;
  kwh: number;
}

/** `start`: the session's start in epoch ms (its caller parsed it already). */
export const meterOf = (session: SessionTimeline, start: number): Meter => {
  // each sample with its time in ms, an object of one shape (a spread of the sample made one of its own)
  const samples = session.samples.map((s) => ({ at: s.at, kwh: s.kwh, power_kw: s.power_kw, current_a: s.current_a, ms: instantMs(s.at) })).sort((a, b) => a.ms - b.ms);
  const points: Point[] = samples.map((s) => ({ ms: s.ms, kwh: s.kwh }));
  if (!points.length || points[0].ms > start) points.unshift({ ms: start, kwh: 0 });

  const energyAt = (ms: number): number => {
    if (ms <= points[0].ms) return points[0].kwh;
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1];
      const b = points[i];
      if (ms <= b.ms) return b.ms === a.ms ? b.kwh : a.kwh + ((b.kwh - a.kwh) * (ms - a.ms)) / (b.ms - a.ms);
    }
    return points[points.length - 1].kwh;
  };

  const held = (field: "power_kw" | "current_a") => (ms: number): number | undefined => {
    let value: number | undefined;
    for (const s of samples as (MeterSample & { ms: number })[]) {
      if (s.ms > ms) break;
      if (s[field] !== undefined) value = s[field];
    }
    return value;
  };

  const crossings = (kwh: number): number[] => {
    const found: number[] = [];
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1];
      const b = points[i];
      if (a.kwh < kwh && kwh <= b.kwh) found.push(a.ms + ((kwh - a.kwh) * (b.ms - a.ms)) / (b.kwh - a.kwh));
    }
    return found;
  };

  return {
    energyAt: (ms) => energyAt(ms) - energyAt(start),
    powerAt: held("power_kw"),
    currentAt: held("current_a"),
    sampleTimes: samples.map((s) => s.ms),
    crossings: (kwh) => crossings(kwh + energyAt(start)),
  };
};
