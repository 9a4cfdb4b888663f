import type { CdrDimension, ChargingPeriod } from "../../../core/model/charging";
import type { PriceComponent, Tariff, TariffDimensionType } from "../model";
import { localTime } from "./local-time";
import { meterOf, type Meter } from "./meter";
import { add, costOf, priceOf, round4, withinLimits, ZERO, type Amount } from "./money";
import { restrictionBoundaries, restrictionsHold, type Moment, type Phase } from "./restrictions";
import { selectTariff } from "./select-tariff";
import { roundUpToStep } from "./step-size";
import { instantMs } from "./instant";
import type { PricedSession, PricingInput, SessionTimeline } from "./types";
import type { PricingTrace } from "./trace";

/**
 * Prices a session (and its reservation) with the Connector's tariffs, the
 * way OCPI 2.3.0 Tariffs and CDRs describe it. Rules, with where they stand:
 *
 * - Element selection (Tariff object): per dimension, the first TariffElement
 *   in list order that has a PriceComponent of that dimension and whose
 *   restrictions all hold at that moment; "only one Tariff per Element type can
 *   be active at any point in time, but multiple Tariff Types can be active at
 *   once"; no matching element: the dimension costs nothing.
 * - Dimensions (TariffDimensionType): ENERGY per kWh, TIME per hour charging,
 *   PARKING_TIME per hour not charging, FLAT once. TIME with a `reservation`
 *   restriction prices the reservation's duration, which lasts "until the
 *   driver starts charging … or the reservation expires".
 * - Periods (CDR ChargingPeriod): "a new ChargingPeriod SHALL start at every
 *   event relevant to cost": the timeline is cut wherever a restriction can
 *   change (restrictions.ts) and where charging stops; consecutive pieces in
 *   which every dimension is priced by the same element form one period.
 * - step_size (CDR object description, 2.2.1-d2/2.3.0 errata): applied once per
 *   session to the total of ENERGY, and once to the total of the time-based
 *   dimension of the last period a time-based component priced (TIME, or
 *   PARKING_TIME when the session ends parked: the charging time before parking
 *   is not rounded), with the step_size of that last component; the surplus is
 *   billed at that last component's price. Reservation time is rounded the same
 *   way on its own.
 * - FLAT: once for the session, from the first moment a FLAT component
 *   applies; a reservation's FLAT (its own elements) is billed besides it.
 * - min_price / max_price bound total_cost (money.ts); the per-dimension totals
 *   are left as computed.
 */

const DIMENSIONS: Record<Phase, TariffDimensionType[]> = {
  CHARGING: ["ENERGY", "TIME"],
  PARKING: ["ENERGY", "PARKING_TIME"],
  RESERVATION: ["TIME"],
  RESERVATION_EXPIRES: ["TIME"],
  BOOKING: ["TIME"],
  BOOKING_EXPIRES: ["TIME"],
};

/** What a slice chooses an element for in each phase: its dimensions, and FLAT */
const CHOSEN = Object.fromEntries(Object.entries(DIMENSIONS).map(([phase, dimensions]) => [phase, [...dimensions, "FLAT"]])) as Record<Phase, TariffDimensionType[]>;

type Bucket = "energy" | "time" | "parking" | "fixed" | "reservation";

interface Choice {
  element: number;
  component: PriceComponent;
}

interface Slice {
  from: number;
  to: number;
  phase: Phase;
  kwh: number;
  choices: Partial<Record<TariffDimensionType, Choice>>;
}

interface Period extends Slice {
  flat?: Choice;
}

interface Line {
  period: Period;
  dimension: TariffDimensionType;
  component: PriceComponent;
  /** kWh, seconds, or 1 for FLAT */
  quantity: number;
  /** the element of the tariff that priced it (its index in `elements`) */
  element: number;
  /** the quantity consumed, before step_size rounding moved the surplus onto the last line */
  consumed: number;
}

const isReservation = (phase: Phase): boolean => phase !== "CHARGING" && phase !== "PARKING";

/** Elements in the order they are tried: RESERVATION_EXPIRES (BOOKING_EXPIRES) ones first for an expired reservation (booking). */
const tryOrder = (tariff: Tariff, phase: Phase): number[] => {
  const indexes = tariff.elements.map((_, i) => i);
  if (phase !== "RESERVATION_EXPIRES" && phase !== "BOOKING_EXPIRES") return indexes;
  const expires = (i: number) => {
    const r = tariff.elements[i].restrictions;
    return phase === "BOOKING_EXPIRES" ? r?.booking === "BOOKING_EXPIRES" : r?.reservation === "RESERVATION_EXPIRES";
  };
  return [...indexes.filter(expires), ...indexes.filter((i) => !expires(i))];
};

const choose = (tariff: Tariff, dimension: TariffDimensionType, moment: Moment): Choice | undefined => {
  const expires = moment.phase === "RESERVATION_EXPIRES" || moment.phase === "BOOKING_EXPIRES";
  for (const element of expires ? tryOrder(tariff, moment.phase) : tariff.elements.keys()) {
    const { price_components, restrictions } = tariff.elements[element];
    const component = price_components.find((c) => c.type === dimension);
    if (component && restrictionsHold(restrictions, moment)) return { element, component };
  }
  return undefined;
};

/** Cuts [from, to] at the boundaries and prices each piece at its midpoint, where every restriction is settled. */
const slicesOf = (
  tariff: Tariff | undefined,
  from: number,
  to: number,
  boundaries: number[],
  momentAt: (ms: number) => Moment,
  kwhBetween: (a: number, b: number) => number,
): Slice[] => {
  // the boundaries within (from, to), sorted, each once (without a Set and spreads)
  const inner = boundaries.filter((t) => t > from && t < to).sort((a, b) => a - b);
  const cuts = [Math.min(from, to)];
  for (const t of inner) if (t !== cuts[cuts.length - 1]) cuts.push(t);
  if (to !== from) cuts.push(Math.max(from, to));
  const slices: Slice[] = [];
  for (let i = 1; i < cuts.length; i++) {
    const moment = momentAt((cuts[i - 1] + cuts[i]) / 2);
    const choices: Slice["choices"] = {};
    if (tariff) for (const d of CHOSEN[moment.phase]) choices[d] = choose(tariff, d, moment);
    slices.push({ from: cuts[i - 1], to: cuts[i], phase: moment.phase, kwh: kwhBetween(cuts[i - 1], cuts[i]), choices });
  }
  return slices;
};

const sameCost = (a: Slice, b: Slice): boolean =>
  a.phase === b.phase && DIMENSIONS[a.phase].every((d) => a.choices[d]?.element === b.choices[d]?.element);

/** Joins pieces priced alike; FLAT goes to the period holding the first piece a FLAT component applies to. */
const periodsOf = (slices: Slice[]): Period[] => {
  const periods: Period[] = [];
  let flatBilled = false;
  for (const slice of slices) {
    const last = periods[periods.length - 1];
    const period: Period = last && sameCost(last, slice) ? last : { from: slice.from, to: slice.to, phase: slice.phase, kwh: slice.kwh, choices: { ...slice.choices } };
    if (period === last) {
      last.to = slice.to;
      last.kwh += slice.kwh;
    } else periods.push(period);
    if (!flatBilled && slice.choices.FLAT) {
      period.flat = slice.choices.FLAT;
      flatBilled = true;
    }
  }
  return periods;
};

const linesOf = (periods: Period[]): Line[] => {
  const lines: Line[] = [];
  for (const period of periods) {
    if (period.flat) lines.push({ period, dimension: "FLAT", component: period.flat.component, quantity: 1, element: period.flat.element, consumed: 1 });
    for (const dimension of DIMENSIONS[period.phase]) {
      const choice = period.choices[dimension];
      if (!choice) continue;
      const quantity = dimension === "ENERGY" ? period.kwh : (period.to - period.from) / 1000;
      lines.push({ period, dimension, component: choice.component, quantity, element: choice.element, consumed: quantity });
    }
  }
  return lines;
};

/** Rounds the lines' total up to the step_size of the last one and bills the surplus on it. */
const roundTotal = (lines: Line[], unitsPerQuantity: number): void => {
  if (!lines.length) return;
  const last = lines[lines.length - 1];
  const total = lines.reduce((sum, l) => sum + l.quantity, 0);
  last.quantity += roundUpToStep(total * unitsPerQuantity, last.component.step_size) / unitsPerQuantity - total;
};

const applyStepSizes = (session: Line[], reservation: Line[]): void => {
  roundTotal(session.filter((l) => l.dimension === "ENERGY"), 1000);
  const timed = session.filter((l) => l.dimension === "TIME" || l.dimension === "PARKING_TIME");
  if (timed.length) {
    const lastDimension = timed[timed.length - 1].dimension;
    roundTotal(timed.filter((l) => l.dimension === lastDimension), 1);
  }
  roundTotal(reservation.filter((l) => l.dimension === "TIME"), 1);
};

const BUCKET_OF: Record<TariffDimensionType, Bucket> = { ENERGY: "energy", TIME: "time", PARKING_TIME: "parking", FLAT: "fixed" };

const bucketOf = (line: Line): Bucket => (isReservation(line.period.phase) ? "reservation" : BUCKET_OF[line.dimension]);

/** Price units: ENERGY per kWh, TIME and PARKING_TIME per hour, FLAT per session. */
const priceUnits = (line: Line): number =>
  line.dimension === "TIME" || line.dimension === "PARKING_TIME" ? line.quantity / 3600 : line.quantity;

const hours = (ms: number): number => round4(ms / 3_600_000);

const iso = (ms: number): string => new Date(Math.round(ms)).toISOString().replace(".000Z", "Z");

const dimensionsOf = (period: Period): CdrDimension[] => {
  const duration = hours(period.to - period.from);
  const energy = round4(period.kwh);
  if (isReservation(period.phase)) return [{ type: "RESERVATION_TIME", volume: duration }];
  if (period.phase === "PARKING")
    return energy ? [{ type: "PARKING_TIME", volume: duration }, { type: "ENERGY", volume: energy }] : [{ type: "PARKING_TIME", volume: duration }];
  return [
    { type: "ENERGY", volume: energy },
    { type: "TIME", volume: duration },
  ];
};

/** A session's start, end and charging end in epoch ms. */
interface SessionInstants {
  start: number;
  end: number;
  chargingEnd: number | undefined;
}

const instantsOf = (session: SessionTimeline): SessionInstants => ({
  start: instantMs(session.start),
  end: instantMs(session.end),
  chargingEnd: session.charging_end ? instantMs(session.charging_end) : undefined,
});

const sessionSlices = (input: PricingInput, tariff: Tariff | undefined, meter: Meter, instants: SessionInstants): Slice[] => {
  const { start, end, chargingEnd } = instants;
  const boundaries = [
    ...meter.sampleTimes,
    ...(chargingEnd !== undefined ? [chargingEnd] : []),
    ...(tariff ? restrictionBoundaries(tariff.elements, start, end, start, input.time_zone, meter) : []),
  ];
  const momentAt = (ms: number): Moment => ({
    phase: chargingEnd !== undefined && ms >= chargingEnd ? "PARKING" : "CHARGING",
    local: localTime(ms, input.time_zone),
    durationS: (ms - start) / 1000,
    kwh: meter.energyAt(ms),
    powerKw: meter.powerAt(ms),
    currentA: meter.currentAt(ms),
  });
  return slicesOf(tariff, start, end, boundaries, momentAt, (a, b) => meter.energyAt(b) - meter.energyAt(a));
};

const reservationSlices = (input: PricingInput, tariff: Tariff | undefined): Slice[] => {
  const reservation = input.reservation!;
  const start = instantMs(reservation.start);
  const end = instantMs(reservation.end);
  const phase: Phase = reservation.booking
    ? reservation.expired ? "BOOKING_EXPIRES" : "BOOKING"
    : reservation.expired ? "RESERVATION_EXPIRES" : "RESERVATION";
  const boundaries = tariff ? restrictionBoundaries(tariff.elements, start, end, start, input.time_zone) : [];
  const momentAt = (ms: number): Moment => ({ phase, local: localTime(ms, input.time_zone), durationS: (ms - start) / 1000, kwh: 0 });
  return slicesOf(tariff, start, end, boundaries, momentAt, () => 0);
};

export const priceSession = (input: PricingInput): PricedSession => priceSessionTraced(input).priced;

/** The CDR's charging periods: one per period, named by the tariff when a line of it was billed. */
const chargingPeriodsOf = (periods: Period[], lines: Line[], tariff: Tariff | undefined): ChargingPeriod[] => {
  const pricedPeriods = new Set(lines.map((l) => l.period));
  return periods.map((period) => {
    const charging: ChargingPeriod = { start_date_time: iso(period.from), dimensions: dimensionsOf(period) };
    if (pricedPeriods.has(period)) charging.tariff_id = tariff!.id;
    return charging;
  });
};

/**
 * `priceSession`, with how it got there: every line billed, its element, step_size rounding and amount (trace.ts).
 * `chargingPeriods` false: the priced session's charging_periods are left empty, for a caller that reads its totals
 * and the trace only (the CDR audit: their ISO timestamps were 2.4 % of its profiled drain, bench/RESULTS.md "CDR audit").
 */
export const priceSessionTraced = (input: PricingInput, chargingPeriods = true): { priced: PricedSession; trace: PricingTrace } => {
  const { session, reservation } = input;
  if (!session && !reservation) throw new Error("priceSession needs a session, a reservation or both");
  const startedAt = reservation?.start ?? session!.start;
  // the session's instants parsed once (they were parsed four, two and two times a pricing: bench/RESULTS.md "CDR audit")
  const instants = session ? instantsOf(session) : undefined;
  const tariff = selectTariff(input.tariffs, reservation ? instantMs(reservation.start) : instants!.start, input.tariff_type);

  const meter = session ? meterOf(session, instants!.start) : undefined;
  const reservationPeriods = reservation ? periodsOf(reservationSlices(input, tariff)) : [];
  const sessionPeriods = session ? periodsOf(sessionSlices(input, tariff, meter!, instants!)) : [];
  const reservationLines = linesOf(reservationPeriods);
  const sessionLines = linesOf(sessionPeriods);
  applyStepSizes(sessionLines, reservationLines);

  const buckets = new Map<Bucket, Amount>();
  const lines = [...reservationLines, ...sessionLines];
  const costs: Amount[] = [];
  const lineBuckets: Bucket[] = [];
  // Lines exist only where an element of the selected tariff applied.
  for (const line of lines) {
    const cost = costOf(line.component, priceUnits(line), tariff!.tax_included);
    const bucket = bucketOf(line);
    costs.push(cost);
    lineBuckets.push(bucket);
    buckets.set(bucket, add(buckets.get(bucket) ?? ZERO, cost));
  }
  const unbounded = [...buckets.values()].reduce(add, ZERO);
  const total = withinLimits(unbounded, tariff?.min_price, tariff?.max_price);
  const bucketPrice = (b: Bucket) => (buckets.has(b) ? priceOf(buckets.get(b)!) : undefined);

  const charging_periods = chargingPeriods ? chargingPeriodsOf([...reservationPeriods, ...sessionPeriods], lines, tariff) : [];

  const start = instants?.start ?? 0;
  const end = instants?.end ?? 0;
  const parkingFrom = instants?.chargingEnd ?? end;
  // built in its keys' order, a total left out when absent: built with a spread and its absent keys deleted, it took
  // 15 of the 35 µs of CPU pricing a session of the audit bench took (bench/RESULTS.md "CDR audit")
  const priced = (tariff ? { tariff } : {}) as PricedSession;
  priced.start_date_time = startedAt;
  priced.end_date_time = session?.end ?? reservation!.end;
  priced.charging_periods = charging_periods;
  priced.total_cost = priceOf(total);
  if (buckets.has("fixed")) priced.total_fixed_cost = bucketPrice("fixed");
  priced.total_energy = meter ? round4(meter.energyAt(end)) : 0;
  if (buckets.has("energy")) priced.total_energy_cost = bucketPrice("energy");
  priced.total_time = hours(end - start);
  if (buckets.has("time")) priced.total_time_cost = bucketPrice("time");
  priced.total_parking_time = hours(end - parkingFrom);
  if (buckets.has("parking")) priced.total_parking_cost = bucketPrice("parking");
  if (buckets.has("reservation")) priced.total_reservation_cost = bucketPrice("reservation");
  const trace: PricingTrace = {
    lines: lines.map((line, i) => ({
      dimension: line.dimension,
      phase: line.period.phase,
      from: line.period.from,
      to: line.period.to,
      element: line.element,
      component: line.component,
      consumed: line.consumed,
      billed: line.quantity,
      bucket: lineBuckets[i],
      cost: costs[i],
    })),
    unbounded,
    bounded: total,
  };
  return { priced, trace };
};
