import type { Price } from "../../../core/model/price";
import type { PriceComponent, PriceLimit, TaxIncluded } from "../model";

/**
 * Money with its tax part. OCPI 2.3.0: PriceComponent.price includes taxes
 * when the Tariff's tax_included is YES and excludes them when NO; `vat` is
 * the percentage, and "if omitted, no VAT is applicable", which differs from
 * 0.0. N/A: no taxes apply.
 */
export interface Amount {
  beforeTaxes: number;
  taxes: number;
  /** some VAT rate applied to the amount (so a CDR lists a VAT TaxAmount, possibly 0) */
  taxed: boolean;
}

export const ZERO: Amount = { beforeTaxes: 0, taxes: 0, taxed: false };

export const add = (a: Amount, b: Amount): Amount => ({
  beforeTaxes: a.beforeTaxes + b.beforeTaxes,
  taxes: a.taxes + b.taxes,
  taxed: a.taxed || b.taxed,
});

/** `quantity` units of a component, priced as its tariff's tax_included says. */
export const costOf = (component: PriceComponent, quantity: number, taxIncluded: TaxIncluded): Amount => {
  const amount = component.price * quantity;
  const vat = component.vat;
  if (taxIncluded === "N/A" || vat === undefined || vat === null) return { beforeTaxes: amount, taxes: 0, taxed: false };
  if (taxIncluded === "YES") {
    const beforeTaxes = amount / (1 + vat / 100);
    return { beforeTaxes, taxes: amount - beforeTaxes, taxed: true };
  }
  return { beforeTaxes: amount, taxes: (amount * vat) / 100, taxed: true };
};

const clamp = (value: number, min?: number | null, max?: number | null): number => {
  let v = value;
  if (max !== undefined && max !== null && v > max) v = max;
  if (min !== undefined && min !== null && v < min) v = min;
  return v;
};

/**
 * Tariff min_price / max_price: "they both apply": the total excluding taxes
 * is bounded by before_taxes, the total including taxes by after_taxes. When
 * the excluding-tax total moves, the including-tax total moves in proportion
 * (the session's effective tax rate is kept) before its own bounds apply.
 * Bounds including taxes apply only to an amount that carries taxes.
 */
export const withinLimits = (total: Amount, min?: PriceLimit | null, max?: PriceLimit | null): Amount => {
  const beforeTaxes = clamp(total.beforeTaxes, min?.before_taxes, max?.before_taxes);
  if (!total.taxed) return { beforeTaxes, taxes: 0, taxed: false };
  const after = total.beforeTaxes + total.taxes;
  const scaled = beforeTaxes === total.beforeTaxes ? after : total.beforeTaxes > 0 ? (after * beforeTaxes) / total.beforeTaxes : beforeTaxes;
  const afterTaxes = clamp(scaled, min?.after_taxes, max?.after_taxes);
  return { beforeTaxes, taxes: afterTaxes - beforeTaxes, taxed: true };
};

/** OCPI numbers carry 4 decimals (Part A, Types: number). */
export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000 + 0;

/** 2.3.0 Price: the taxes as one TaxAmount named VAT, the way the CDR example lists them. */
export const priceOf = (amount: Amount): Price =>
  amount.taxed
    ? { before_taxes: round4(amount.beforeTaxes), taxes: [{ name: "VAT", amount: round4(amount.taxes) }] }
    : { before_taxes: round4(amount.beforeTaxes) };
