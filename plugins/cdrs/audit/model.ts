import type { PartyRef } from "../../../core/protocol/types";
import type { TracedLine } from "../../tariffs/engine";
import type { TariffRestrictions, TaxIncluded } from "../../tariffs/model";
import type { KeptNote } from "./notes";

/**
 * What the CDR audit keeps per CDR (README "Auditing CDRs and invoices"):
 * the verdict, every difference with its explanation, and how the CDR was
 * re-priced, line by line.
 */
export type Verdict = "match" | "mismatch" | "unpriceable";
export const VERDICTS: readonly Verdict[] = ["match", "mismatch", "unpriceable"];

/** Which way the CDR passed the gateway: a partner's (its push, our pull) or ours (pushed to a partner). */
export type Direction = "received" | "sent";

/** One way the CDR differs from what the gateway computes, or from its Session or the CDR it credits. */
export interface Difference {
  /** the CDR field, e.g. `total_time_cost.before_taxes`, `total_cost.taxes`, `session.kwh`, `credit.total_cost` */
  field: string;
  /** what the CDR says */
  cdr: number | string | null;
  /** what it should say */
  expected: number | string | null;
  /** which tariff element and restriction, step_size rounding and dimension produced the expected value */
  explanation: string;
}

export interface CdrAudit {
  /** `<direction>/<country_code>/<party_id>/<id>` (upper-cased) */
  key: string;
  /** the partner the CDR came from (received) or went to (sent); absent for ours when no partner holds its token's owner */
  partner?: string;
  direction: Direction;
  owner: PartyRef;
  cdr_id: string;
  currency: string;
  audited_at: string;
  verdict: Verdict;
  /** why it could not be priced (unpriceable) */
  reason?: string;
  /** the tariff it was re-priced with and where it was found */
  tariff?: { id: string; source: "embedded" | "held" };
  differences: Difference[];
  /** the re-pricing, one line per billed period and dimension, then the totals */
  explanation: string[];
  /** facts that did not change the verdict (no Session held, the time zone assumed) */
  notes: string[];
  /** the CDR's own amounts after taxes, for a credit CDR to be checked against (credit-check.ts) */
  amounts: Record<string, number>;
  credit_reference_id?: string;
}

/**
 * A line of the re-pricing as the store keeps it (the engine's TracedLine, flat):
 * [dimension, phase, from (epoch ms), to, element, price, vat, step_size, consumed, billed, bucket, before taxes, taxes, taxed].
 */
export type KeptLine = [
  TracedLine["dimension"], TracedLine["phase"], number, number, number, number, number | null, number, number, number,
  TracedLine["bucket"], number, number, boolean,
];

/** The re-pricing as the store keeps it: the facts its explanation is rendered from when an audit is read (explain.ts). */
export interface KeptRepricing {
  tax_included?: TaxIncluded;
  /** the restrictions of each of the tariff's elements, by index */
  restrictions: (TariffRestrictions | null)[];
  lines: KeptLine[];
  /** the lines' sum and the total_cost within min_price / max_price: [before taxes, taxes] */
  unbounded: [number, number];
  bounded: [number, number];
}

/**
 * An audit as the store keeps it: a re-priced CDR's explanation as its facts (`repricing`), its differences from the
 * re-pricing and its notes as codes, put in words when the audit is read (explain.ts `explained`), not for every CDR
 * audited (bench/RESULTS.md "CDR audit").
 */
export type KeptAudit = Omit<CdrAudit, "explanation" | "differences" | "notes"> & { differences: KeptDifference[]; notes: KeptNote[] } & ({ explanation: string[] } | { repricing: KeptRepricing });

/**
 * A difference as the store keeps it: one explained by the re-pricing's words for its field (a total that differs from
 * the re-priced one) keeps, instead of its explanation, what comes before those words (`repriced`: "" or why the taxes
 * differ), and is worded with the re-pricing when the audit is read (explain.ts `explained`), not for every CDR audited.
 */
export type KeptDifference = Difference | (Omit<Difference, "explanation"> & { repriced: string });

/** Store key of a CDR's audit; owner and id are CiStrings (OCPI 2.2.1 Types), upper-cased. */
export const auditKey = (direction: Direction, owner: PartyRef, id: string): string =>
  `${direction}/${owner.country_code.toUpperCase()}/${owner.party_id.toUpperCase()}/${id.toUpperCase()}`;
