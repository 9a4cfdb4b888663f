import type { AdminRoute } from "../../core/contract/admin-route";
import type { InvoiceDesk } from "./desk";

/**
 * The operator's records of one partner, through the gateway's admin API (`/admin/v1/invoices/<partner>…`); the
 * CLI (`ocpi-gateway invoices`) does the same through the same InvoiceDesk:
 *
 *   GET    /invoices/<partner>         the records we issued to it and those it sent us, each with its findings
 *   POST   /invoices/<partner>         body { invoice_id, cdrs, id?, to? }: a record we issue, pushed to the partner
 *   PUT    /invoices/<partner>/<id>    body { invoice_id, cdrs }: replaces a record we issued, pushed by PUT
 *   DELETE /invoices/<partner>/<id>    withdraws a record we issued (it was wrong), pushed by DELETE
 */
export const invoiceAdminRoutes = (desk: InvoiceDesk): AdminRoute[] => [
  { method: "GET", path: "/invoices/:partner", handle: async (req) => ({ data: await desk.list(req.params.partner) }) },
  { method: "POST", path: "/invoices/:partner", handle: async (req) => ({ data: await desk.add(req.params.partner, req.body), httpStatus: 201 }) },
  { method: "PUT", path: "/invoices/:partner/:id", handle: async (req) => ({ data: await desk.replace(req.params.partner, req.params.id, req.body) }) },
  {
    method: "DELETE",
    path: "/invoices/:partner/:id",
    handle: async (req) => {
      await desk.remove(req.params.partner, req.params.id);
      return { data: null };
    },
  },
];
