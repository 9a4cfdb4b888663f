import type { PriceComponent, TariffDimensionType } from "../model";
import type { Amount } from "./money";
import type { Phase } from "./restrictions";

/**
 * How the engine priced a session, for an audit to explain an amount: every
 * line it billed (a dimension of a period, priced by one element of the
 * tariff), in billing order, with the quantity consumed and the quantity
 * billed after step_size rounding, the CDR total it adds to (`bucket`) and
 * its cost; and the total before and after min_price / max_price.
 */
export interface TracedLine {
  dimension: TariffDimensionType;
  phase: Phase;
  /** the period the line prices, epoch ms */
  from: number;
  to: number;
  /** index of the tariff element that priced it */
  element: number;
  component: PriceComponent;
  /** kWh, seconds, or 1 for FLAT, as consumed */
  consumed: number;
  /** as billed: step_size rounding adds the surplus to the last line of a dimension */
  billed: number;
  /** the CDR total it adds to */
  bucket: "energy" | "time" | "parking" | "fixed" | "reservation";
  cost: Amount;
}

export interface PricingTrace {
  lines: TracedLine[];
  /** the sum of the lines' costs */
  unbounded: Amount;
  /** that sum within the tariff's min_price / max_price: the total_cost */
  bounded: Amount;
}
