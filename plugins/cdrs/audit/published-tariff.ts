import { isDeepStrictEqual } from "node:util";
import { withoutNulls } from "../../../core/model/without-nulls";
import type { Tariff } from "../../tariffs/model";
import type { Difference } from "./model";
import type { KeptNote } from "./notes";

/**
 * The tariff a CDR embeds against the one its CPO published under the same
 * id (pulled or pushed to us, or our own tariffs module): what prices a
 * session (currency, tax_included, min_price, max_price, the elements) must
 * be the same. Compared only when the published one was last updated before
 * the session started, so it was the one in force; a tariff changed since
 * cannot tell.
 */
const PRICING = ["currency", "tax_included", "min_price", "max_price", "elements"] as const;

const pricingOf = (tariff: Tariff): Record<string, unknown> =>
  withoutNulls(Object.fromEntries(PRICING.map((key) => [key, tariff[key]]).filter(([, v]) => v !== undefined))) as Record<string, unknown>;

/** Where two tariffs first differ in what prices a session, in words. */
const firstDifference = (embedded: Record<string, any>, published: Record<string, any>): string => {
  for (const key of PRICING) {
    if (isDeepStrictEqual(embedded[key], published[key])) continue;
    if (key !== "elements" || !Array.isArray(embedded.elements) || !Array.isArray(published.elements))
      return `${key} ${JSON.stringify(embedded[key] ?? null)} in the CDR, ${JSON.stringify(published[key] ?? null)} published`;
    const count = Math.max(embedded.elements.length, published.elements.length);
    for (let i = 0; i < count; i++)
      if (!isDeepStrictEqual(embedded.elements[i], published.elements[i]))
        return `element #${i} ${JSON.stringify(embedded.elements[i] ?? null)} in the CDR, ${JSON.stringify(published.elements[i] ?? null)} published`;
  }
  return "";
};

export type PublishedCheck = { differs: false; note?: KeptNote } | { differs: true; difference: Difference };

export const checkPublished = (embedded: Tariff, published: Tariff | undefined, sessionStart: string): PublishedCheck => {
  if (!published) return { differs: false, note: ["unpublished", embedded.id] };
  const [mine, theirs] = [pricingOf(embedded), pricingOf(published)];
  if (isDeepStrictEqual(mine, theirs)) return { differs: false };
  if (Date.parse(published.last_updated) > Date.parse(sessionStart))
    return { differs: false, note: ["changed-since", embedded.id, published.last_updated] };
  return {
    differs: true,
    difference: {
      field: `tariffs[${embedded.id}]`,
      cdr: embedded.last_updated ?? null,
      expected: published.last_updated,
      explanation: `the CDR's tariff ${embedded.id} is not the one published (last_updated ${published.last_updated}, before the session): ${firstDifference(mine, theirs)}; the amounts are re-priced with the published one`,
    },
  };
};
