import type { Price } from "../../../core/model/price";
import type { PricedSession } from "../../tariffs/engine";
import type { AuditedCdr } from "./audited-cdr";
import type { Difference, KeptDifference } from "./model";
import { money } from "./explain";

/**
 * The CDR's amounts against the re-priced ones: before_taxes and the sum of
 * the taxes of total_cost and each dimension's total, beyond the currency's
 * tolerance, explained by the re-pricing's words for that total when the audit
 * is read (KeptDifference, explain.ts `repricedWords`); and total_time, total_parking_time and the charging periods'
 * energy against the CDR's timestamps and total_energy.
 */
export const PRICE_FIELDS = ["total_cost", "total_fixed_cost", "total_energy_cost", "total_time_cost", "total_parking_cost", "total_reservation_cost"] as const;

const taxesOf = (p: Price | undefined): number => (p?.taxes ?? []).reduce((s, t) => s + Number(t.amount), 0);

/** A Price after taxes, for the credit check (an absent total is 0). */
export const afterTaxes = (p: Price | undefined): number => (p ? Number(p.before_taxes) + taxesOf(p) : 0);

const r4 = (n: number): number => Math.round(n * 10_000) / 10_000 + 0;

/**
 * `totalOnly`: a CDR as 2.1.1 carries it, whose costs are numbers excluding VAT and whose only per-dimension
 * figure is total_parking_time: only total_cost before taxes is compared.
 */
export const priceDifferences = (cdr: AuditedCdr, priced: PricedSession, tolerance: number, totalOnly = false): KeptDifference[] => {
  const differences: KeptDifference[] = [];
  for (const field of totalOnly ? (["total_cost"] as const) : PRICE_FIELDS) {
    const stated = cdr[field] as Price | undefined;
    const expected = priced[field] as Price | undefined;
    const before = [stated ? Number(stated.before_taxes) : 0, expected?.before_taxes ?? 0];
    const taxes = [taxesOf(stated), taxesOf(expected)];
    if (Math.abs(before[0] - before[1]) > tolerance + 1e-9)
      differences.push({ field: `${field}.before_taxes`, cdr: stated ? r4(before[0]) : null, expected: r4(before[1]), repriced: "" });
    if (!totalOnly && Math.abs(taxes[0] - taxes[1]) > tolerance + 1e-9)
      differences.push({ field: `${field}.taxes`, cdr: stated ? r4(taxes[0]) : null, expected: r4(taxes[1]), repriced: stated?.taxes?.length ? "" : "the CDR lists no taxes; " });
  }
  return differences;
};

const HOUR_TOLERANCE = 0.001;
const KWH_TOLERANCE = 0.001;

export const quantityDifferences = (cdr: AuditedCdr, priced: PricedSession, periodsKwh: number | undefined): Difference[] => {
  const differences: Difference[] = [];
  if (Math.abs(cdr.total_time - priced.total_time) > HOUR_TOLERANCE)
    differences.push({
      field: "total_time",
      cdr: cdr.total_time,
      expected: priced.total_time,
      explanation: `the session lasts from start_date_time ${cdr.start_date_time} to end_date_time ${cdr.end_date_time}: ${priced.total_time} h`,
    });
  if (cdr.total_parking_time !== undefined && Math.abs(cdr.total_parking_time - priced.total_parking_time) > HOUR_TOLERANCE)
    differences.push({
      field: "total_parking_time",
      cdr: cdr.total_parking_time,
      expected: priced.total_parking_time,
      explanation: `the charging periods without TIME (PARKING_TIME only) last ${priced.total_parking_time} h`,
    });
  if (periodsKwh !== undefined && Math.abs(periodsKwh - cdr.total_energy) > KWH_TOLERANCE)
    differences.push({
      field: "total_energy",
      cdr: cdr.total_energy,
      expected: r4(periodsKwh),
      explanation: `the ENERGY volumes of the charging periods add up to ${money(periodsKwh)} kWh`,
    });
  return differences;
};
