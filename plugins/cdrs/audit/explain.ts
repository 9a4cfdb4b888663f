import type { Tariff, TariffRestrictions } from "../../tariffs/model";
import type { PricingTrace, TracedLine } from "../../tariffs/engine";
import type { CdrAudit, Difference, KeptAudit, KeptDifference, KeptLine, KeptRepricing } from "./model";
import { noteText } from "./notes";

/**
 * The re-pricing in words, as an operator reads it: per billed line the
 * dimension and period, the tariff element and its restrictions, the price,
 * the quantity consumed and billed with the step_size rounding, and the
 * amount with its tax.
 */

/** Money: cents when exact, else the 4 decimals OCPI numbers carry. */
export const money = (n: number): string => {
  const r = Math.round(n * 10_000) / 10_000 + 0;
  return Number.isInteger(Math.round(r * 10_000) / 100) ? r.toFixed(2) : String(r);
};

const iso = (ms: number): string => new Date(Math.round(ms)).toISOString().replace(".000Z", "Z");

const num = (n: number): string => String(Math.round(n * 10_000) / 10_000 + 0);

const UNIT: Record<string, { per: string; of: (q: number) => string; step: (s: number) => string }> = {
  ENERGY: { per: "kWh", of: (q) => `${num(q)} kWh`, step: (s) => `${s} Wh` },
  TIME: { per: "hour", of: (q) => `${num(q)} s`, step: (s) => `${s} s` },
  PARKING_TIME: { per: "hour", of: (q) => `${num(q)} s`, step: (s) => `${s} s` },
  FLAT: { per: "session", of: () => "once", step: () => "" },
};

export const restrictionsText = (r: TariffRestrictions | null | undefined): string => {
  const set = Object.entries(r ?? {}).filter(([, v]) => v !== undefined && v !== null);
  return set.length ? `restrictions ${set.map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(",") : v}`).join(", ")}` : "no restrictions";
};

const FIELD_OF: Record<TracedLine["bucket"], string> = {
  energy: "total_energy_cost",
  time: "total_time_cost",
  parking: "total_parking_cost",
  fixed: "total_fixed_cost",
  reservation: "total_reservation_cost",
};
export const fieldOfBucket = (bucket: TracedLine["bucket"]): string => FIELD_OF[bucket];

const isReservation = (l: TracedLine) => l.phase === "RESERVATION" || l.phase === "RESERVATION_EXPIRES";

/** What step_size did to this line: the rounding of the dimension's total lands on its last line. */
const stepText = (line: TracedLine, all: TracedLine[]): string => {
  const step = line.component.step_size;
  if (line.dimension === "FLAT") return "";
  const same = all.filter((l) => l.dimension === line.dimension && isReservation(l) === isReservation(line));
  if (same[same.length - 1] !== line) return "";
  const unit = UNIT[line.dimension];
  const timed = all.filter((l) => !isReservation(l) && (l.dimension === "TIME" || l.dimension === "PARKING_TIME"));
  const lastTimed = timed[timed.length - 1]?.dimension;
  if (!isReservation(line) && line.dimension !== "ENERGY" && line.dimension !== lastTimed)
    return `, not rounded: step_size applies to the session's last time-based dimension, ${lastTimed}`;
  if (!(step > 0)) return ", step_size 0: not rounded";
  const consumed = same.reduce((s, l) => s + l.consumed, 0);
  const billed = same.reduce((s, l) => s + l.billed, 0);
  if (Math.abs(billed - consumed) < 1e-9) return `, step_size ${unit.step(step)}: ${unit.of(consumed)} of ${line.dimension} is a multiple, not rounded`;
  const scale = line.dimension === "ENERGY" ? 1000 : 1;
  return `, step_size ${unit.step(step)}: the ${unit.of(consumed)} of ${line.dimension} rounded up to ${Math.round((billed * scale) / step)} × ${unit.step(step)} = ${unit.of(billed)}, the surplus billed here`;
};

/** What of the tariff the words name: its elements' restrictions and tax_included. */
interface NamedTariff {
  tax_included?: Tariff["tax_included"] | null;
  elements: readonly { restrictions?: TariffRestrictions | null }[];
}

const taxText = (line: TracedLine, tariff: NamedTariff): string => {
  if (!line.cost.taxed) return "no VAT";
  return `VAT ${line.component.vat} % ${money(line.cost.taxes)} (tax_included ${tariff.tax_included ?? "NO"})`;
};

export const lineText = (line: TracedLine, all: TracedLine[], tariff: NamedTariff): string => {
  const unit = UNIT[line.dimension];
  const element = tariff.elements[line.element];
  const quantity = line.dimension === "FLAT" ? "once" : `consumed ${unit.of(line.consumed)}, billed ${unit.of(line.billed)}`;
  return (
    `${line.dimension} ${iso(line.from)} to ${iso(line.to)} (${line.phase}): element #${line.element} (${restrictionsText(element?.restrictions)}), ` +
    `${money(line.component.price)} per ${unit.per}, ${quantity}${stepText(line, all)}: ${money(line.cost.beforeTaxes)} excl. tax, ` +
    `${taxText(line, tariff)} → ${FIELD_OF[line.bucket]}`
  );
};

/** The whole re-pricing: one line per billed line, then what min_price / max_price did. */
export const explanationOf = (trace: PricingTrace, tariff: NamedTariff): string[] => {
  const lines = trace.lines.map((l) => lineText(l, trace.lines, tariff));
  const before = trace.unbounded.beforeTaxes;
  const bounded = trace.bounded.beforeTaxes;
  if (Math.abs(before - bounded) > 1e-9)
    lines.push(`total_cost: the lines add up to ${money(before)} excl. tax, bounded by the tariff's ${bounded > before ? "min_price" : "max_price"} to ${money(bounded)}`);
  else lines.push(`total_cost: the lines add up to ${money(before)} excl. tax, ${money(trace.bounded.taxes)} tax`);
  return lines;
};

/**
 * A computed amount or quantity as the audit keeps it: to 9 decimals, which the words (4 decimals) and the
 * tolerances (0.001 and up) never see, without the binary noise of its sums (0.9166000000000001: 18 characters
 * of JSON against 6, written and read for every CDR).
 */
export const kept9 = (n: number): number => Math.round(n * 1e9) / 1e9 + 0;

/** The re-pricing as the store keeps it (model.ts KeptRepricing): the facts `explanationOf` words. */
export const keptRepricing = (trace: PricingTrace, tariff: Tariff): KeptRepricing => {
  // built in its keys' order, tax_included set when present (a conditional spread makes a slower object)
  const kept = {} as KeptRepricing;
  if (tariff.tax_included) kept.tax_included = tariff.tax_included;
  kept.restrictions = tariff.elements.map((e) => e.restrictions ?? null);
  kept.lines = trace.lines.map((l): KeptLine => [
    l.dimension, l.phase, l.from, l.to, l.element, l.component.price, l.component.vat ?? null, l.component.step_size, kept9(l.consumed), kept9(l.billed),
    l.bucket, kept9(l.cost.beforeTaxes), kept9(l.cost.taxes), l.cost.taxed,
  ]);
  kept.unbounded = [kept9(trace.unbounded.beforeTaxes), kept9(trace.unbounded.taxes)];
  kept.bounded = [kept9(trace.bounded.beforeTaxes), kept9(trace.bounded.taxes)];
  return kept;
};

const tracedLine = ([dimension, phase, from, to, element, price, vat, step_size, consumed, billed, bucket, beforeTaxes, taxes, taxed]: KeptLine): TracedLine => ({
  dimension,
  phase,
  from,
  to,
  element,
  component: { type: dimension, price, ...(vat !== null ? { vat } : {}), step_size },
  consumed,
  billed,
  bucket,
  cost: { beforeTaxes, taxes, taxed },
});

/** The re-pricing's words for one total (a PRICE_FIELDS field): all of them for total_cost, else the lines billed to it. */
const repricedWords = (field: string, trace: PricingTrace, tariff: NamedTariff & { id: string }, words: string[]): string => {
  if (field === "total_cost") return words.join("; ");
  const lines = trace.lines.filter((l) => fieldOfBucket(l.bucket) === field);
  if (!lines.length) return `no element of tariff ${tariff.id} prices this dimension during the session: ${field} is 0`;
  return lines.map((l) => lineText(l, trace.lines, tariff)).join("; ");
};

/** A kept difference, worded: one explained by the re-pricing gets the words for its total (`<total>.before_taxes` or `<total>.taxes`). */
const wordedDifference = (difference: KeptDifference, trace: PricingTrace, tariff: NamedTariff & { id: string }, words: string[]): Difference => {
  if (!("repriced" in difference)) return difference;
  const { field, cdr, expected, repriced } = difference;
  return { field, cdr, expected, explanation: repriced + repricedWords(field.slice(0, field.lastIndexOf(".")), trace, tariff, words) };
};

/** An audit as the store keeps it, its re-pricing in words (`explanation`, where the store keeps `repricing`), its differences and notes. */
export const explained = (audit: KeptAudit): CdrAudit => {
  const notes = audit.notes.map(noteText);
  // the spread keeps `notes` in its place
  if (!("repricing" in audit)) return { ...audit, notes } as CdrAudit;
  const { lines, unbounded, bounded, restrictions, tax_included } = audit.repricing;
  const trace: PricingTrace = {
    lines: lines.map(tracedLine),
    unbounded: { beforeTaxes: unbounded[0], taxes: unbounded[1], taxed: false },
    bounded: { beforeTaxes: bounded[0], taxes: bounded[1], taxed: false },
  };
  const tariff = { id: audit.tariff?.id ?? "", tax_included, elements: restrictions.map((r) => ({ restrictions: r })) };
  const words = explanationOf(trace, tariff);
  const differences = audit.differences.map((d) => wordedDifference(d, trace, tariff, words));
  // in the place of `repricing`, so the audit reads in the order it always did
  return Object.fromEntries(
    Object.entries(audit).map(([key, value]) => (key === "repricing" ? ["explanation", words] : key === "differences" ? [key, differences] : key === "notes" ? [key, notes] : [key, value])),
  ) as unknown as CdrAudit;
};
