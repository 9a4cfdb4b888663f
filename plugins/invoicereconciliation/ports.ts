import type { Page, PageRequest } from "../../core/contract/page";
import type { PortContext, PutOutcome } from "../../core/contract/port-context";
import type { PartyRef } from "../../core/protocol/types";
import type { Cdr } from "../cdrs/model";
import type { InvoiceReconciliationRecord, IssuedRecord } from "./model";

/**
 * Ports of the invoicereconciliation module (OCPI 2.3.0 edition 2, Invoice Reconciliation module).
 *
 * SENDER (we issue the invoices: the CPO for direct billing, the eMSP for reverse billing): the records our
 * parties issued, each addressed to one partner party (`IssuedRecord.to`), written through the admin API and
 * the CLI (desk.ts) and pushed to that party's Receiver.
 *
 * RECEIVER (the partner issues them): the records a partner posted, kept per owning party (the partner's party
 * that issued them).
 *
 * Both: `findCdr`, a CDR as the backend holds it (ours, or one a partner sent us), for the invoice checks
 * (checks.ts); undefined when there is none under that owner.
 */
export interface InvoiceReconciliationSenderPort {
  /**
   * a page of `ctx.party`'s records, ordered by last_updated, filtered on it (from inclusive, to exclusive);
   * when `ctx.scope` is set, only those addressed to a party in it (`inScope`), counted alike in `total`
   */
  list(page: PageRequest, ctx: PortContext): Promise<Page<InvoiceReconciliationRecord>>;
  get(owner: PartyRef, id: string, ctx: PortContext): Promise<IssuedRecord | undefined>;
  /** creates or replaces the record of `issued.record`'s owner and id */
  put(issued: IssuedRecord, ctx: PortContext): Promise<PutOutcome>;
  /** false when there was no such record */
  delete(owner: PartyRef, id: string, ctx: PortContext): Promise<boolean>;
  findCdr(owner: PartyRef, id: string, ctx: PortContext): Promise<Cdr | undefined>;
}

export interface InvoiceReconciliationReceiverPort {
  get(owner: PartyRef, id: string, ctx: PortContext): Promise<InvoiceReconciliationRecord | undefined>;
  put(owner: PartyRef, record: InvoiceReconciliationRecord, ctx: PortContext): Promise<PutOutcome>;
  /** false when there was no such record */
  delete(owner: PartyRef, id: string, ctx: PortContext): Promise<boolean>;
  /** a page of `owner`'s records, ordered by last_updated (what the admin API shows of a partner's) */
  list(owner: PartyRef, page: PageRequest, ctx: PortContext): Promise<Page<InvoiceReconciliationRecord>>;
  findCdr(owner: PartyRef, id: string, ctx: PortContext): Promise<Cdr | undefined>;
}
