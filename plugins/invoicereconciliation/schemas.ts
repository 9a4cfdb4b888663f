import { z } from "zod";
import { ciString, countryCode, dateTime, nonEmptyArray, partyId } from "../../core/model/common-schemas";

/**
 * The wire schema of InvoiceReconciliationRecord (OCPI 2.3.0 edition 2, Invoice Reconciliation module): the one
 * version that has the module. `cdrs` holds one CDR id at least (cardinality `+`), each a CiString(36) as the
 * module says, although a credit CDR's own id may be 39 long (OCPI 2.2.1 CDRs module): such a credit CDR cannot
 * be named in a record (docs/invoicereconciliation.md).
 */
export const invoiceReconciliationRecordSchema = () =>
  z.looseObject({
    country_code: countryCode(),
    party_id: partyId(),
    id: ciString(36),
    invoice_id: ciString(255),
    cdrs: nonEmptyArray(ciString(36)),
    last_updated: dateTime(),
  });
