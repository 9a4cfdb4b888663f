import { defineObjectType } from "../../core/model/object-type";
import type { ObjectType } from "../../core/contract/object-type";
import type { InvoiceReconciliationRecord } from "./model";
import { invoiceReconciliationRecordSchema } from "./schemas";

/**
 * InvoiceReconciliationRecord: 2.3.0 only (module.ts serves it in no other version), so there is no translator
 * and nothing a translation drops. The object type still names a schema per version, as every type does; the
 * 2.3.0 one stands for all, never used for another.
 */
const schema = invoiceReconciliationRecordSchema();

export const invoiceRecordType: ObjectType<InvoiceReconciliationRecord> = defineObjectType<InvoiceReconciliationRecord>({
  name: "InvoiceReconciliationRecord",
  schemas: { "2.3.0": schema, "2.2.1": schema, "2.1.1": schema },
  translators: {},
});
