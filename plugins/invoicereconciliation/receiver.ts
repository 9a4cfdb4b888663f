import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { putWhole, written } from "../../core/modules/receiver-writes";
import { invalid, notFound } from "../../core/contract/errors";
import type { InvoiceReconciliationRecord } from "./model";
import type { InvoiceReconciliationReceiverPort } from "./ports";
import { invoiceRecordType } from "./translate";

const PATH = "/:country_code/:party_id/:id";

const idOf = (req: OcpiRequest): string => {
  const id = req.params.id;
  if (id.length > 36) throw invalid("path id must be at most 36 characters");
  return id;
};

/**
 * Receiver interface (OCPI 2.3.0 edition 2, Invoice Reconciliation module): the partner that issues invoices
 * POSTs a new record to the module URL, and reads, replaces (PUT) or withdraws (DELETE) it at
 * `/{country_code}/{party_id}/{id}`; there is no PATCH (405). A record belongs to the party that issued it, its
 * own `country_code`/`party_id`, which the kernel checks is one of the partner's (`owner: "body"` for the POST,
 * the path for the others): a partner reads and writes only its own parties' records.
 *
 * The module calls the record client-owned yet has it created by a POST to the bare URL
 * (docs/invoicereconciliation.md): a POST of a record the owner already has replaces it (200), so a sender
 * retrying a POST it could not confirm is not refused; a PUT of an unknown record creates it (201), as a
 * client-owned PUT does in every other module.
 */
export const receiverRoutes = (port: InvoiceReconciliationReceiverPort): RouteSpec[] => [
  {
    method: "POST",
    path: "",
    body: { type: invoiceRecordType, mode: "full" },
    owner: "body",
    handle: async (req: OcpiRequest<InvoiceReconciliationRecord>) => {
      const owner = req.owner!;
      const record = { ...req.body, country_code: owner.country_code, party_id: owner.party_id };
      return written(await port.put(owner, record, req.port));
    },
  },
  {
    method: "GET",
    path: PATH,
    response: invoiceRecordType,
    handle: async (req) => {
      const record = await port.get(req.owner!, idOf(req), req.port);
      if (!record) throw notFound("InvoiceReconciliationRecord");
      return { data: record };
    },
  },
  {
    method: "PUT",
    path: PATH,
    body: { type: invoiceRecordType, mode: "full" },
    handle: async (req) => putWhole(req, port, { id: idOf(req) }),
  },
  {
    method: "DELETE",
    path: PATH,
    handle: async (req) => {
      if (!(await port.delete(req.owner!, idOf(req), req.port))) throw notFound("InvoiceReconciliationRecord");
      return written();
    },
  },
];
