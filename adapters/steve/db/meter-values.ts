import type { EnergyReading, MeterValueRow } from "./rows";

/** OCPP 1.6 defaults for what a station may leave out of a SampledValue (SteVe stores NULL then). */
export const OCPP_DEFAULTS = {
  readingContext: "Sample.Periodic",
  format: "Raw",
  measurand: "Energy.Active.Import.Register",
  location: "Outlet",
} as const;

export const ENERGY_REGISTER = "Energy.Active.Import.Register";

export interface RawMeterValue {
  timestamp: Date;
  value: string;
  readingContext: string | null;
  format: string | null;
  measurand: string | null;
  location: string | null;
  unit: string | null;
  phase: string | null;
}

export const withOcppDefaults = (raw: RawMeterValue): MeterValueRow => ({
  timestamp: raw.timestamp,
  value: raw.value,
  readingContext: raw.readingContext ?? OCPP_DEFAULTS.readingContext,
  format: raw.format ?? OCPP_DEFAULTS.format,
  measurand: raw.measurand ?? OCPP_DEFAULTS.measurand,
  location: raw.location ?? OCPP_DEFAULTS.location,
  // Energy defaults to Wh; other measurands have no unit default worth guessing.
  unit: raw.unit ?? ((raw.measurand ?? OCPP_DEFAULTS.measurand).startsWith("Energy.") ? "Wh" : ""),
  phase: raw.phase,
});

/** OCPI numbers carry 4 decimals. */
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

/** A register value in kWh, or undefined when it is not a plain number in Wh or kWh. */
export const registerKwh = (value: string, unit: string): number | undefined => {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) return undefined;
  if (unit === "Wh") return n / 1000;
  if (unit === "kWh") return n;
  return undefined;
};

/**
 * The meter register over a transaction: meterStart, every total (phase-less)
 * raw import-register sample, and meterStop, in kWh, ordered by time. Signed
 * samples are left out (their value is not a number).
 */
export function energyReadings(
  start: { at: Date; wh: string },
  values: MeterValueRow[],
  stop: { at: Date; wh: string } | null,
): EnergyReading[] {
  const readings: EnergyReading[] = [];
  const add = (at: Date, kwh: number | undefined) => {
    if (kwh !== undefined) readings.push({ at, kwh });
  };
  add(start.at, registerKwh(start.wh, "Wh"));
  for (const v of values)
    if (v.measurand === ENERGY_REGISTER && v.phase === null && v.format === "Raw") add(v.timestamp, registerKwh(v.value, v.unit));
  if (stop) add(stop.at, registerKwh(stop.wh, "Wh"));
  readings.sort((a, b) => a.at.getTime() - b.at.getTime());
  return readings;
}

/** Energy between the first and the last reading, never negative (a meter swap must not credit energy). */
export const chargedKwh = (readings: EnergyReading[]): number =>
  readings.length < 2 ? 0 : round4(Math.max(0, readings[readings.length - 1].kwh - readings[0].kwh));
