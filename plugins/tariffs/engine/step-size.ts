/**
 * PriceComponent.step_size: "consumed amounts are rounded up to the smallest
 * multiple of step_size"; the multiplier is 1 Wh for ENERGY and 1 second for
 * TIME and PARKING_TIME; FLAT has none. A step_size of 0 (the free-of-charge
 * example uses it) rounds nothing.
 */
export const roundUpToStep = (units: number, step: number): number => {
  if (!(step > 0)) return units;
  // Wh and seconds come from float kWh and ms: 0.3 kWh is 300.00000000000006 Wh, not 301 steps of 1.
  const exact = Math.round(units * 1e6) / 1e6;
  return Math.ceil(exact / step) * step;
};
