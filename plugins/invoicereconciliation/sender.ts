import type { RouteSpec } from "../../core/contract/module-plugin";
import type { InvoiceReconciliationSenderPort } from "./ports";
import { invoiceRecordType } from "./translate";

/**
 * Sender interface (OCPI 2.3.0 edition 2, Invoice Reconciliation module): the paginated list of our party's
 * records, `date_from`/`date_to` on last_updated, only those addressed to the requesting partner's parties
 * (its scope), so not cached across partners.
 */
export const senderRoutes = (port: InvoiceReconciliationSenderPort): RouteSpec[] => [
  {
    method: "GET",
    path: "",
    paginated: true,
    cache: "per-scope",
    response: invoiceRecordType,
    handle: async (req) => ({ page: await port.list(req.page, req.port) }),
  },
];
