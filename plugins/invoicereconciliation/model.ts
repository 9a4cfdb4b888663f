/**
 * Canonical objects of the invoicereconciliation module (OCPI 2.3.0 edition 2, Invoice Reconciliation module):
 * a record says which CDRs one invoice covers. The party that issues the invoices is the Sender (the CPO for
 * direct billing, the eMSP for reverse billing) and owns the records: `country_code`/`party_id` are its own.
 * Only 2.3.0 has the module, so there is nothing to translate (translate.ts).
 */
import type { PartyRef } from "../../core/protocol/types";

export interface InvoiceReconciliationRecord {
  /** the issuing party (the Sender of the module) */
  country_code: string;
  party_id: string;
  id: string;
  invoice_id: string;
  /** the ids of the CDRs the invoice covers, one at least */
  cdrs: string[];
  last_updated: string;
  /** 2.3.0 extensibility: unknown properties are kept */
  [extra: string]: unknown;
}

/**
 * A record one of our parties issued (we are the Sender), with the partner party it is addressed to: the one
 * partner party that may read it in our Sender list and that it is pushed to. The addressee is ours to know;
 * it is not part of the record on the wire.
 */
export interface IssuedRecord {
  record: InvoiceReconciliationRecord;
  to: PartyRef;
}
