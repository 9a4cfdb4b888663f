import type { Cdr } from "../model";
import type { AuditedCdr } from "./audited-cdr";
import type { Difference } from "./model";
import { PRICE_FIELDS, afterTaxes } from "./compare";
import { kept9, money } from "./explain";

/**
 * A credit CDR (`credit`, `credit_reference_id`; OCPI 2.2.1 CDRs, Credit
 * CDRs: the same data as the CDR it credits with negative amounts) against
 * the CDR it credits: every total, before and after taxes, must cancel.
 */

/** A CDR's amounts as the audit keeps them: `<field>` before taxes and `<field>.after_taxes`. */
const AFTER_TAXES = PRICE_FIELDS.map((field) => `${field}.after_taxes`);

export const amountsOf = (cdr: AuditedCdr): Record<string, number> => {
  const amounts: Record<string, number> = {};
  PRICE_FIELDS.forEach((field, i) => {
    const price = cdr[field] as Cdr["total_cost"] | undefined;
    if (!price) return;
    amounts[field] = kept9(Number(price.before_taxes));
    amounts[AFTER_TAXES[i]] = kept9(afterTaxes(price));
  });
  return amounts;
};

export const creditDifferences = (cdr: AuditedCdr, original: Record<string, number> | undefined, tolerance: number): Difference[] => {
  const reference = cdr.credit_reference_id;
  if (!reference)
    return [{ field: "credit_reference_id", cdr: null, expected: null, explanation: "a credit CDR must name the CDR it credits (credit_reference_id)" }];
  if (!original)
    return [{ field: "credit_reference_id", cdr: reference, expected: null, explanation: `the credited CDR ${reference} is not held: nothing to cancel` }];
  const credit = amountsOf(cdr);
  const differences: Difference[] = [];
  for (const key of new Set([...Object.keys(original), ...Object.keys(credit)])) {
    const sum = (credit[key] ?? 0) + (original[key] ?? 0);
    if (Math.abs(sum) <= tolerance + 1e-9) continue;
    const [field, part] = key.endsWith(".after_taxes") ? [key.slice(0, -12), "after taxes"] : [key, "before taxes"];
    differences.push({
      field: `credit.${key.endsWith(".after_taxes") ? key : `${key}.before_taxes`}`,
      cdr: money(credit[key] ?? 0),
      expected: money(-(original[key] ?? 0)),
      explanation: `CDR ${reference} has ${field} ${money(original[key] ?? 0)} ${part}; its credit must be its opposite, they add up to ${money(sum)}`,
    });
  }
  return differences;
};
