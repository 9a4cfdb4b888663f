import type { ChargingPeriod } from "../../kit";
import { round4 } from "../db/meter-values";
import type { MeterValueRow, TransactionRow } from "../db/rows";

const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z");
const HOUR_MS = 3_600_000;

/** Instantaneous measurands an OCPI period may carry, with the unit OCPI uses and the factor from SteVe's. */
const INSTANT: { measurand: string; type: string; factors: Record<string, number> }[] = [
  { measurand: "Power.Active.Import", type: "POWER", factors: { W: 0.001, kW: 1 } },
  { measurand: "Current.Import", type: "CURRENT", factors: { A: 1 } },
  { measurand: "SoC", type: "STATE_OF_CHARGE", factors: { Percent: 1, "": 1 } },
];

function instantDimensions(samples: MeterValueRow[], from: Date, to: Date) {
  const dimensions: { type: string; volume: number }[] = [];
  for (const { measurand, type, factors } of INSTANT) {
    // The first total (phase-less) sample within the period stands for it.
    const sample = samples.find((s) => s.measurand === measurand && s.phase === null && s.timestamp >= from && s.timestamp < to);
    const factor = sample ? factors[sample.unit] : undefined;
    const value = sample ? Number(sample.value) : NaN;
    if (factor !== undefined && Number.isFinite(value)) dimensions.push({ type, volume: round4(value * factor) });
  }
  return dimensions;
}

/**
 * Charging periods from the meter register: one period per interval between
 * consecutive energy readings (start, samples, stop), with the ENERGY
 * charged (kWh) and TIME (hours) in it, plus the power, current and state
 * of charge sampled within it. Tariff dimensions change no more often than
 * the meter is sampled, so a tariff engine can price these periods as they are.
 */
export function chargingPeriods(tx: TransactionRow): ChargingPeriod[] {
  const periods: ChargingPeriod[] = [];
  const readings = tx.energy;
  for (let i = 0; i + 1 < readings.length; i++) {
    const from = readings[i];
    const to = readings[i + 1];
    if (to.at.getTime() === from.at.getTime() && i + 2 < readings.length) continue;
    periods.push({
      start_date_time: iso(from.at),
      dimensions: [
        { type: "ENERGY", volume: round4(Math.max(0, to.kwh - from.kwh)) },
        { type: "TIME", volume: round4((to.at.getTime() - from.at.getTime()) / HOUR_MS) },
        ...instantDimensions(tx.meterValues, from.at, to.at),
      ],
    });
  }
  return periods;
}
