import type { GatewayConfig } from "../../../config/types";
import type { ModuleCatalog } from "../../../core/modules/module-catalog";
import type { PartnerRegistry } from "../../../core/partners/partner-registry";
import { ciKey } from "../../../core/model/common-schemas";
import type { PartyRef } from "../../../core/protocol/types";
import type { Cdr } from "../model";
import { checkInvoiceRecords, recordRefOf, type InvoiceFinding, type RecordRef } from "../../invoicereconciliation/checks";
import type { InvoiceReconciliationRecord } from "../../invoicereconciliation/model";
import type { InvoiceReconciliationReceiverPort, InvoiceReconciliationSenderPort } from "../../invoicereconciliation/ports";
import type { CdrAudit } from "./model";

/** What the invoices exchanged with a CDR's partner say about it (docs/invoicereconciliation.md, "Checks"). */
export interface CdrInvoices {
  /** the Invoice Reconciliation records naming the CDR */
  records: RecordRef[];
  /** the invoice checks' findings about it: as a CDR of a record, or as the original a credit CDR of a record names */
  findings: InvoiceFinding[];
}

const ALL = { offset: 0, limit: 100_000 };
const upper = (p: PartyRef): PartyRef => ({ country_code: p.country_code.toUpperCase(), party_id: p.party_id.toUpperCase() });

/**
 * The invoice checks of the invoicereconciliation module (its checks.ts) over the records exchanged with the
 * audit's partner, read through that module's ports as the catalog serves them: those we issued to the
 * partner's parties (SENDER) and those its parties issued to us (RECEIVER). Undefined when the module is not
 * served or the CDR has no partner.
 */
export const invoicesOf = async (catalog: ModuleCatalog, config: GatewayConfig, registry: PartnerRegistry, audit: CdrAudit): Promise<CdrInvoices | undefined> => {
  const served = catalog.served.filter((s) => s.plugin.module === "invoicereconciliation");
  const partner = audit.partner ? await registry.get(audit.partner) : undefined;
  if (!served.length || !partner) return undefined;
  const theirs = partner.roles.map(upper);
  const records: InvoiceReconciliationRecord[] = [];
  const finders: ((owner: PartyRef, id: string) => Promise<Cdr | undefined>)[] = [];
  for (const { role, port } of served) {
    if (role === "SENDER") {
      const sender = port as InvoiceReconciliationSenderPort;
      const scope = { parties: theirs, relay: false, excluded: [] };
      for (const party of config.parties) records.push(...(await sender.list(ALL, { partnerId: partner.id, party, scope })).items);
      finders.push((owner, id) => sender.findCdr(owner, id, { partnerId: partner.id, party: owner }));
    } else {
      const receiver = port as InvoiceReconciliationReceiverPort;
      for (const party of theirs) records.push(...(await receiver.list(party, ALL, { partnerId: partner.id, party: config.parties[0] })).items);
      finders.push((owner, id) => receiver.findCdr(owner, id, { partnerId: partner.id, party: config.parties[0] }));
    }
  }
  // a record's CDR is ours or the partner's, whichever side issued it (direct or reverse billing)
  const owners = [...config.parties.map(upper), ...theirs];
  const findings = await checkInvoiceRecords(records, async (cdrId) => {
    for (const owner of owners) for (const find of finders) {
      const cdr = await find(owner, cdrId).catch(() => undefined);
      if (cdr) return cdr;
    }
    return undefined;
  });
  const id = ciKey(audit.cdr_id);
  return {
    records: records.filter((r) => r.cdrs.some((c) => ciKey(c) === id)).map(recordRefOf),
    findings: findings.filter((f) => ciKey(f.cdr_id) === id || (f.credit_reference_id !== undefined && ciKey(f.credit_reference_id) === id)),
  };
};
