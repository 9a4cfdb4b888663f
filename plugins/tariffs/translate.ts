import { defineObjectType } from "../../core/model/object-type";
import { type ObjectType, type TranslationContext, type TranslationLoss } from "../../core/contract/object-type";
import { mapPriceFields, type Price22 } from "../../core/model/price";
import type { PriceComponent, PriceLimit, TaxIncluded, Tariff, TariffElement } from "./model";
import { TARIFF_PATCH_SCHEMAS, TARIFF_SCHEMAS } from "./schemas";

/**
 * Tariff across versions. Canonical is 2.3.0; up/down translators for 2.2.1
 * and 2.1.1 map only the keys present, so they also work on 2.1.1 PATCH
 * fragments.
 *
 * Tax semantics: 2.2.1 and 2.1.1 PriceComponent prices exclude VAT; 2.3.0
 * says per tariff (`tax_included`). Going up we therefore set
 * tax_included "NO" whenever the wire carries `elements` (the prices it
 * describes). Going down with tax_included "YES" a component price is
 * converted to excluding VAT when the component states its `vat` rate
 * (price / (1 + vat/100), 4 decimals); without a rate there is nothing to
 * divide by, so the price is passed through unchanged and the ambiguity is
 * reported as a dropped field. "N/A" (no taxes apply) needs no conversion.
 */


const BOTH = ["2.2.1", "2.1.1"];
const OLD = ["2.1.1"];

export const TARIFFS_TRANSLATION_LOSSES: readonly TranslationLoss[] = [
  { object: "Tariff", field: "tax_included", versions: BOTH, why: "2.3.0 only; older prices always exclude VAT (reported when YES or N/A)" },
  { object: "Tariff", field: "preauthorize_amount", versions: BOTH, why: "2.3.0 (Payments) only" },
  {
    object: "Tariff",
    field: "elements.price_components.price",
    versions: BOTH,
    why: "tax_included YES without a vat rate on the component: the tax-inclusive price is passed through as if it excluded VAT",
  },
  {
    object: "Tariff",
    field: "elements.restrictions.booking",
    versions: BOTH,
    why: "Bookings extension (2.3.0) only; the whole element is dropped because without the restriction it would price every session",
  },
  { object: "Tariff", field: "type", versions: OLD, why: "TariffType is 2.2+" },
  { object: "Tariff", field: "min_price", versions: OLD, why: "2.2+" },
  { object: "Tariff", field: "max_price", versions: OLD, why: "2.2+" },
  { object: "Tariff", field: "start_date_time", versions: OLD, why: "2.2+" },
  { object: "Tariff", field: "end_date_time", versions: OLD, why: "2.2+" },
  { object: "Tariff", field: "elements.price_components.vat", versions: OLD, why: "2.1.1 PriceComponent has no VAT rate" },
  { object: "Tariff", field: "elements.restrictions.min_current", versions: OLD, why: "2.2+" },
  { object: "Tariff", field: "elements.restrictions.max_current", versions: OLD, why: "2.2+" },
  {
    object: "Tariff",
    field: "elements.restrictions.reservation",
    versions: OLD,
    why: "2.2+; the whole element is dropped because without the restriction it would price every session",
  },
];

const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;
const present = (v: unknown): boolean => v !== undefined && v !== null;

/* ---------- min_price / max_price: PriceLimit (2.3.0) <-> Price (2.2.1) ---------- */

const limitUp = ({ excl_vat, incl_vat, ...extra }: Price22): PriceLimit => {
  const limit: PriceLimit = { ...extra, before_taxes: excl_vat };
  if (incl_vat !== undefined) limit.after_taxes = incl_vat;
  return limit;
};

const limitDown = ({ before_taxes, after_taxes, ...extra }: PriceLimit): Price22 => {
  const price: Price22 = { ...extra, excl_vat: before_taxes };
  if (after_taxes !== undefined) price.incl_vat = after_taxes as number;
  return price;
};

/* ---------- elements down ---------- */

/** Restriction keys that mark an element as pricing something other than charging. */
const SPECIAL_RESTRICTIONS: Record<string, readonly string[]> = {
  "2.2.1": ["booking"],
  "2.1.1": ["booking", "reservation"],
};

const componentDown = (
  component: PriceComponent,
  taxIncluded: TaxIncluded | undefined,
  version: "2.2.1" | "2.1.1",
  tx: TranslationContext,
): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...component };
  if (taxIncluded === "YES" && typeof component.price === "number") {
    if (typeof component.vat === "number") out.price = round4(component.price / (1 + component.vat / 100));
    else tx.dropped("elements.price_components.price", "tax-inclusive price without a vat rate passed through unchanged");
  }
  if (version === "2.1.1" && "vat" in out) {
    if (present(out.vat)) tx.dropped("elements.price_components.vat", "2.1.1 PriceComponent has no VAT rate");
    delete out.vat;
  }
  return out;
};

const restrictionsDown = (restrictions: Record<string, unknown>, version: "2.2.1" | "2.1.1", tx: TranslationContext) => {
  if (version !== "2.1.1") return restrictions;
  const { min_current, max_current, ...rest } = restrictions;
  if (present(min_current)) tx.dropped("elements.restrictions.min_current", "2.2+");
  if (present(max_current)) tx.dropped("elements.restrictions.max_current", "2.2+");
  return rest;
};

const elementsDown = (
  elements: TariffElement[],
  taxIncluded: TaxIncluded | undefined,
  version: "2.2.1" | "2.1.1",
  tx: TranslationContext,
): unknown[] => {
  const out: unknown[] = [];
  for (const element of elements) {
    const restrictions = element.restrictions ?? undefined;
    const special = SPECIAL_RESTRICTIONS[version].find((key) => restrictions && present(restrictions[key]));
    if (special) {
      tx.dropped(`elements.restrictions.${special}`, `not in ${version}: element dropped`);
      continue;
    }
    const copy: Record<string, unknown> = { ...element };
    if (Array.isArray(element.price_components))
      copy.price_components = element.price_components.map((c) => componentDown(c, taxIncluded, version, tx));
    if (restrictions) {
      // booking may be present but null; it is still not a 2.2.1/2.1.1 field
      const { booking: _booking, ...kept } = restrictions;
      copy.restrictions = restrictionsDown(kept, version, tx);
      if (version === "2.1.1") delete (copy.restrictions as Record<string, unknown>).reservation;
    }
    out.push(copy);
  }
  return out;
};

/* ---------- energy mix: 2.1.1 environ_impact.source <-> 2.2+ category ---------- */

const renameImpacts = (mix: unknown, from: string, to: string): unknown => {
  if (!mix || typeof mix !== "object") return mix;
  const m = mix as Record<string, unknown>;
  if (!Array.isArray(m.environ_impact)) return mix;
  return {
    ...m,
    environ_impact: m.environ_impact.map((impact: Record<string, unknown>) => {
      if (!impact || typeof impact !== "object" || !(from in impact)) return impact;
      const { [from]: value, ...rest } = impact;
      return { ...rest, [to]: value };
    }),
  };
};

/* ---------- translators ---------- */

const up22 = (wire: Record<string, unknown>): Tariff => {
  const out = mapPriceFields(wire, ["min_price", "max_price"], (p) => limitUp(p as Price22));
  // 2.2.1 prices exclude VAT by definition
  if ("elements" in wire) out.tax_included = "NO";
  return out as unknown as Tariff;
};

const down22 = (canonical: Tariff, tx: TranslationContext): Record<string, unknown> => {
  const { tax_included, preauthorize_amount, ...rest } = canonical;
  if (present(preauthorize_amount)) tx.dropped("preauthorize_amount", "2.3.0 (Payments) only");
  if (present(tax_included) && tax_included !== "NO") tx.dropped("tax_included", `2.3.0 only (value ${tax_included})`);
  const out = mapPriceFields(rest as Record<string, unknown>, ["min_price", "max_price"], (p) => limitDown(p as PriceLimit));
  if (Array.isArray(canonical.elements)) out.elements = elementsDown(canonical.elements, tax_included, "2.2.1", tx);
  return out;
};

const OWNER_AND_22_FIELDS = ["type", "min_price", "max_price", "start_date_time", "end_date_time"] as const;

const up211 = (wire: Record<string, unknown>, tx: TranslationContext): Tariff => {
  const out: Record<string, unknown> = { ...wire };
  // 2.1.1 tariffs carry no owner: it is the URL's (or the partner's only) party
  if (tx.owner) {
    out.country_code ??= tx.owner.country_code;
    out.party_id ??= tx.owner.party_id;
  }
  if ("energy_mix" in wire) out.energy_mix = renameImpacts(wire.energy_mix, "source", "category");
  if ("elements" in wire) out.tax_included = "NO";
  return out as unknown as Tariff;
};

const down211 = (canonical: Tariff, tx: TranslationContext): Record<string, unknown> => {
  const { country_code: _cc, party_id: _pid, tax_included, preauthorize_amount, ...rest } = canonical;
  const out: Record<string, unknown> = { ...rest };
  if (present(preauthorize_amount)) tx.dropped("preauthorize_amount", "2.3.0 (Payments) only");
  if (present(tax_included) && tax_included !== "NO") tx.dropped("tax_included", `2.3.0 only (value ${tax_included})`);
  for (const field of OWNER_AND_22_FIELDS) {
    if (present(out[field])) tx.dropped(field, "2.2+");
    delete out[field];
  }
  if (Array.isArray(canonical.elements)) out.elements = elementsDown(canonical.elements, tax_included, "2.1.1", tx);
  if ("energy_mix" in out) out.energy_mix = renameImpacts(out.energy_mix, "category", "source");
  return out;
};

export const tariffType: ObjectType<Tariff> = defineObjectType<Tariff>({
  name: "Tariff",
  schemas: TARIFF_SCHEMAS,
  patchSchemas: TARIFF_PATCH_SCHEMAS,
  translators: {
    "2.2.1": { up: (wire) => up22(wire), down: down22 },
    "2.1.1": { up: up211, down: down211 },
  },
});
