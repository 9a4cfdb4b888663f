/**
 * Invoice checks: what an operator must look at in a set of Invoice Reconciliation records, given the CDRs they
 * name (docs/invoicereconciliation.md, "Checks"). Pure: no store, no clock; the caller says how a CDR is found.
 *
 * Exported names (stable; the CDR audit uses them):
 * - `checkInvoiceRecords(records, lookup)`: the findings, in the order of the records and of their `cdrs`
 * - `CdrLookup`: `(cdrId, record) => Cdr | undefined` (or a Promise of one): the CDR a record names
 * - `InvoiceFinding`, `InvoiceFindingKind`, `INVOICE_FINDING_KINDS`, `RecordRef`, `recordRefOf`
 *
 * Kinds of finding, each about one record and one CDR id it names:
 * - `unknown_cdr`: no CDR with that id is known
 * - `cdr_in_two_invoices`: another record names the same CDR with another `invoice_id` (`others` says which)
 * - `credit_original_unknown`: the CDR is a credit CDR (`credit: true`) whose `credit_reference_id` is missing
 *   or names no known CDR
 * - `credit_original_not_invoiced`: the credited CDR is known, but no record names it
 * CDR ids and invoice ids are CiStrings (OCPI 2.2.1 Types): compared without regard to case. A record naming one
 * CDR twice is read as naming it once.
 */
import type { Cdr } from "../cdrs/model";
import { ciKey } from "../../core/model/common-schemas";
import type { InvoiceReconciliationRecord } from "./model";

export const INVOICE_FINDING_KINDS = ["unknown_cdr", "cdr_in_two_invoices", "credit_original_unknown", "credit_original_not_invoiced"] as const;
export type InvoiceFindingKind = (typeof INVOICE_FINDING_KINDS)[number];

/** Which record a finding is about: its owner and id, and the invoice it stands for. */
export interface RecordRef {
  country_code: string;
  party_id: string;
  id: string;
  invoice_id: string;
}

export interface InvoiceFinding {
  kind: InvoiceFindingKind;
  record: RecordRef;
  /** the CDR id as the record names it */
  cdr_id: string;
  /** cdr_in_two_invoices: the other records naming the CDR under another invoice */
  others?: RecordRef[];
  /** credit findings: the id of the CDR the credit CDR says it credits, when it says one */
  credit_reference_id?: string;
  /** in plain words, for the operator */
  message: string;
}

/** The CDR a record names, looked up where the caller keeps CDRs (whose CDRs they are depends on the side we are). */
export type CdrLookup = (cdrId: string, record: InvoiceReconciliationRecord) => Cdr | undefined | Promise<Cdr | undefined>;

export const recordRefOf = ({ country_code, party_id, id, invoice_id }: InvoiceReconciliationRecord): RecordRef => ({ country_code, party_id, id, invoice_id });

const named = (ref: RecordRef): string => `record ${ref.country_code}/${ref.party_id}/${ref.id} (invoice ${ref.invoice_id})`;

/** The ids a record names, each once, in its order. */
const cdrIdsOf = (record: InvoiceReconciliationRecord): string[] => {
  const seen = new Set<string>();
  return record.cdrs.filter((id) => !seen.has(ciKey(id)) && seen.add(ciKey(id)));
};

/** Every finding about `records`, in their order, each record's in the order of its `cdrs`. */
export async function checkInvoiceRecords(records: readonly InvoiceReconciliationRecord[], lookup: CdrLookup): Promise<InvoiceFinding[]> {
  const namers = new Map<string, RecordRef[]>();
  for (const record of records) for (const id of cdrIdsOf(record)) namers.set(ciKey(id), [...(namers.get(ciKey(id)) ?? []), recordRefOf(record)]);
  const findings: InvoiceFinding[] = [];
  for (const record of records) {
    const ref = recordRefOf(record);
    for (const cdrId of cdrIdsOf(record)) {
      const others = namers.get(ciKey(cdrId))!.filter((other) => ciKey(other.invoice_id) !== ciKey(ref.invoice_id));
      if (others.length)
        findings.push({
          kind: "cdr_in_two_invoices",
          record: ref,
          cdr_id: cdrId,
          others,
          message: `CDR ${cdrId} is in ${named(ref)} and also in ${others.map(named).join(", ")}`,
        });
      const cdr = await lookup(cdrId, record);
      if (!cdr) {
        findings.push({ kind: "unknown_cdr", record: ref, cdr_id: cdrId, message: `CDR ${cdrId} of ${named(ref)} is not known` });
        continue;
      }
      if (cdr.credit === true) {
        const credit = await creditFinding(cdr, cdrId, record, ref, lookup, namers);
        if (credit) findings.push(credit);
      }
    }
  }
  return findings;
}

/** A credit CDR's finding: its original unknown, or known but in no record; undefined when the original is invoiced. */
async function creditFinding(
  cdr: Cdr,
  cdrId: string,
  record: InvoiceReconciliationRecord,
  ref: RecordRef,
  lookup: CdrLookup,
  namers: ReadonlyMap<string, RecordRef[]>,
): Promise<InvoiceFinding | undefined> {
  const original = cdr.credit_reference_id;
  if (!original)
    return { kind: "credit_original_unknown", record: ref, cdr_id: cdrId, message: `credit CDR ${cdrId} of ${named(ref)} names no credit_reference_id` };
  if (!(await lookup(original, record)))
    return {
      kind: "credit_original_unknown",
      record: ref,
      cdr_id: cdrId,
      credit_reference_id: original,
      message: `credit CDR ${cdrId} of ${named(ref)} credits CDR ${original}, which is not known`,
    };
  if (!namers.has(ciKey(original)))
    return {
      kind: "credit_original_not_invoiced",
      record: ref,
      cdr_id: cdrId,
      credit_reference_id: original,
      message: `credit CDR ${cdrId} of ${named(ref)} credits CDR ${original}, which no record names`,
    };
  return undefined;
}
