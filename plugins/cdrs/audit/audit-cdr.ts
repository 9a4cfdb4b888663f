import { priceSessionTraced, type PricingInput } from "../../tariffs/engine";
import type { Tariff } from "../../tariffs/model";
import type { Session } from "../../sessions/model";
import type { AuditedCdr } from "./audited-cdr";
import type { VersionNumber } from "../../../core/protocol/types";
import type { CdrAudit, Direction, KeptAudit, KeptDifference, KeptRepricing } from "./model";
import { auditKey } from "./model";
import type { KeptNote } from "./notes";
import { timelineOf } from "./timeline";
import { chooseTariff, unsupportedRestriction } from "./tariff-choice";
import { checkPublished } from "./published-tariff";
import { explained, keptRepricing } from "./explain";
import { priceDifferences, quantityDifferences } from "./compare";
import { sessionDifferences } from "./session-check";
import { amountsOf, creditDifferences } from "./credit-check";

/** What the audit of one CDR needs besides the CDR, gathered from the ports by the worker (audit-inputs.ts). */
export interface AuditContext {
  direction: Direction;
  partner?: string;
  /** the version the CDR came or went in: a 2.1.1 CDR's costs exclude VAT and only total_cost is priced */
  version?: VersionNumber;
  /** the tariffs the CDR names (its charging periods' and embedded ones' ids), as held: published by the partner, or ours */
  heldTariffs: readonly Tariff[];
  /** the Location's time_zone, when held */
  timeZone?: string;
  /** the Session the CDR closes, when held */
  session?: Session;
  /** the amounts of the CDR a credit CDR credits (`CdrAudit.amounts`), when held */
  original?: Record<string, number>;
  /** the currency's tolerance (config `audit.tolerance`) */
  tolerance: number;
  now: string;
}

const inForce = (tariff: Tariff, at: string): boolean =>
  (!tariff.start_date_time || Date.parse(tariff.start_date_time) <= Date.parse(at)) &&
  (!tariff.end_date_time || Date.parse(at) < Date.parse(tariff.end_date_time));

/**
 * Audits one CDR (pure): a credit CDR against the CDR it credits; any other
 * re-priced with the tariff engine against the tariff it names, each total
 * compared; both against the Session. The tariff the CDR names prices it even
 * outside its validity or for another TariffType: the CPO says it applied,
 * and a note says when that is odd. The audit as the store keeps it: its
 * re-pricing as facts (`repricing`), worded when read (`auditCdr` words it at once).
 */
export const auditKept = (cdr: AuditedCdr, ctx: AuditContext): KeptAudit => {
  const differences: KeptDifference[] = [];
  const notes: KeptNote[] = [];
  let explanation: string[] = [];
  let repricing: KeptRepricing | undefined;
  let reason: string | undefined;
  let tariffRef: CdrAudit["tariff"];

  if (cdr.credit === true) {
    differences.push(...creditDifferences(cdr, ctx.original, ctx.tolerance));
    explanation = [`credit CDR of ${cdr.credit_reference_id ?? "(none named)"}: its totals are checked to cancel that CDR's, not re-priced`];
  } else {
    const timeline = timelineOf(cdr);
    const choice = chooseTariff(cdr, ctx.heldTariffs);
    if ("unpriceable" in choice) reason = choice.unpriceable;
    else {
      let { tariff, source } = choice;
      if (source === "embedded") {
        const start = timeline.reservation?.start ?? timeline.session?.start ?? cdr.start_date_time;
        const published = ctx.heldTariffs.find((t) => t.id.toUpperCase() === tariff.id.toUpperCase());
        const check = checkPublished(tariff, published, start);
        if (check.differs) {
          differences.push(check.difference);
          [tariff, source] = [published!, "held"];
        } else if (check.note) notes.push(check.note);
      }
      tariffRef = { id: tariff.id, source };
      reason = unsupportedRestriction(tariff, timeline, ctx.timeZone !== undefined);
      if (!reason && tariff.currency !== cdr.currency) reason = `tariff ${tariff.id} is in ${tariff.currency}, the CDR in ${cdr.currency}`;
      if (!reason) {
        const start = timeline.reservation?.start ?? timeline.session!.start;
        if (!inForce(tariff, start)) notes.push(["not-in-force", tariff.id, start]);
        if (ctx.timeZone === undefined) notes.push(["no-time-zone"]);
        // what prices a session, without the validity and type the engine would choose by (copying every field took longer)
        const { country_code, party_id, id, currency, elements, tax_included, min_price, max_price, last_updated } = tariff;
        const applied: Tariff = { country_code, party_id, id, currency, elements, tax_included, min_price, max_price, last_updated };
        const input: PricingInput = { tariffs: [applied], time_zone: ctx.timeZone ?? "UTC" };
        if (timeline.session) input.session = timeline.session;
        if (timeline.reservation) input.reservation = timeline.reservation;
        // its totals and trace: the audit reads no charging periods of the re-pricing
        const { priced, trace } = priceSessionTraced(input, false);
        repricing = keptRepricing(trace, tariff);
        if (!tariff.tax_included) notes.push(["no-tax-included", tariff.id]);
        if (ctx.version === "2.1.1") notes.push(["total-only"]);
        differences.push(...priceDifferences(cdr, priced, ctx.tolerance, ctx.version === "2.1.1"), ...quantityDifferences(cdr, priced, timeline.periodsKwh));
      }
    }
  }
  if (ctx.session) differences.push(...sessionDifferences(cdr, ctx.session));
  else if (cdr.session_id) notes.push(["no-session", cdr.session_id]);

  const verdict = reason ? "unpriceable" : differences.length ? "mismatch" : "match";
  return keptAudit(auditKey(ctx.direction, { country_code: cdr.country_code, party_id: cdr.party_id }, cdr.id), cdr, ctx, {
    verdict, reason, tariff: tariffRef, differences, repricing, explanation, notes, amounts: amountsOf(cdr),
  });
};

/**
 * The audit of a CDR the audit cannot read (a date that is none, from a backend that skipped validation), under the key it
 * was queued with: unpriceable with the reason, so it does not stay at the head of the queue, failing every batch after it.
 */
export const unreadableAudit = (key: string, cdr: AuditedCdr, ctx: AuditContext, error: Error): KeptAudit =>
  keptAudit(key, cdr, ctx, { verdict: "unpriceable", reason: `the CDR could not be read: ${error.message}`, differences: [], explanation: [], notes: [], amounts: {} });

/** What an audit found, besides what the CDR and the context say. */
interface Found {
  verdict: CdrAudit["verdict"];
  reason?: string;
  tariff?: CdrAudit["tariff"];
  differences: KeptDifference[];
  repricing?: KeptRepricing;
  explanation: string[];
  notes: KeptNote[];
  amounts: CdrAudit["amounts"];
}

/** The audit as kept, built in its keys' order, the optional ones set when present (an object literal of conditional spreads is slower). */
const keptAudit = (key: string, cdr: AuditedCdr, ctx: AuditContext, found: Found): KeptAudit => {
  const audit = { key } as Omit<KeptAudit, "explanation" | "repricing"> & { explanation?: string[]; repricing?: KeptRepricing };
  if (ctx.partner) audit.partner = ctx.partner;
  audit.direction = ctx.direction;
  audit.owner = { country_code: cdr.country_code, party_id: cdr.party_id };
  audit.cdr_id = cdr.id;
  audit.currency = cdr.currency;
  audit.audited_at = ctx.now;
  audit.verdict = found.verdict;
  if (found.reason) audit.reason = found.reason;
  if (found.tariff) audit.tariff = found.tariff;
  audit.differences = found.differences;
  if (found.repricing) audit.repricing = found.repricing;
  else audit.explanation = found.explanation;
  audit.notes = found.notes;
  audit.amounts = found.amounts;
  if (cdr.credit_reference_id) audit.credit_reference_id = cdr.credit_reference_id;
  return audit as KeptAudit;
};

/** `auditKept`, its re-pricing in words. */
export const auditCdr = (cdr: AuditedCdr, ctx: AuditContext): CdrAudit => explained(auditKept(cdr, ctx));
