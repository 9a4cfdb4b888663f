import type { TranslationContext } from "../contract/object-type";

/** Canonical (2.3.0) Price. */
export interface Price {
  before_taxes: number;
  taxes?: { name: string; account_number?: string; percentage?: number; amount: number }[];
  [extra: string]: unknown;
}

export interface Price22 {
  excl_vat: number;
  incl_vat?: number;
  [extra: string]: unknown;
}

/** OCPI numbers carry 4 decimals; rounding keeps 2.2.1 → 2.3.0 → 2.2.1 exact. */
const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

/** 2.2.1 → 2.3.0: the VAT part becomes one tax named VAT. */
export const priceUp = ({ excl_vat, incl_vat, ...extra }: Price22): Price => {
  const price: Price = { ...extra, before_taxes: excl_vat };
  if (incl_vat !== undefined && incl_vat !== null) price.taxes = [{ name: "VAT", amount: round4(incl_vat - excl_vat) }];
  return price;
};

/** 2.3.0 → 2.2.1: taxes are summed into incl_vat; their names and breakdown are lost. */
export const priceDown = ({ before_taxes, taxes, ...extra }: Price, tx: TranslationContext, field = "price"): Price22 => {
  const price: Price22 = { ...extra, excl_vat: before_taxes };
  if (taxes && taxes.length) {
    price.incl_vat = round4(before_taxes + taxes.reduce((sum, t) => sum + t.amount, 0));
    if (taxes.length > 1 || taxes[0].name !== "VAT" || taxes[0].percentage !== undefined || taxes[0].account_number !== undefined)
      tx.dropped(`${field}.taxes`, "2.2.1 Price has only incl_vat: tax names, rates and accounts are summed away");
  }
  return price;
};

/** 2.1.1 costs are plain numbers excluding VAT. */
export const priceFromNumber = (amount: number): Price => ({ before_taxes: amount });

export const priceToNumber = (price: Price, tx: TranslationContext, field = "price"): number => {
  if (price.taxes?.length) tx.dropped(`${field}.taxes`, "2.1.1 costs are numbers excluding VAT");
  return price.before_taxes;
};

/** Applies a translation to the listed Price fields of an object that are present (PATCH-safe). */
export const mapPriceFields = <T extends Record<string, unknown>>(
  object: T,
  fields: readonly string[],
  map: (price: any, field: string) => unknown,
): T => {
  const out: Record<string, unknown> = { ...object };
  for (const field of fields) if (out[field] !== undefined && out[field] !== null) out[field] = map(out[field], field);
  return out as T;
};
