import type { AdminRoute } from "../../core/contract/admin-route";
import { invalid } from "../../core/contract/errors";
import { TERMINALS, FACS } from "./model";
import type { PtpDesk } from "./ptp-desk";
import type { FacOwners } from "./fac-owner";

/**
 * The CPO's backend acting on a PTP partner's terminals through the gateway
 * (admin API, `/admin/v1/payments/<partner>/…`), like commands; the CLI
 * (`ocpi-gateway terminals`) does the same through the same PtpDesk:
 *
 *   GET  /terminals                     the PTP's list of our terminals
 *   POST /terminals/activate            body: Terminal, terminal_id optional → the PTP's answer
 *   POST /terminals/<id>/deactivate
 *   PUT  /terminals/<id>                body: the fields to set (customer_reference, invoice_base_url, …)
 *   POST /terminals/<id>/assignment     body: { location_ids?, evse_uids? }, added to the current ones (PATCH)
 *   GET  /terminals/<id>                the terminal as the PTP has it
 *   GET  /financial-advice-confirmations        the PTP's list of our FACs
 *   GET  /financial-advice-confirmations/<id>   a FAC the PTP posted or we pulled, with the Sessions and CDRs it paid for
 */
export const paymentsAdminRoutes = (desk: PtpDesk): AdminRoute[] => {
  const base = `/payments/:partner/${TERMINALS}`;
  return [
    { method: "GET", path: base, handle: async (req) => ({ data: await desk.terminals(req.params.partner) }) },
    { method: "POST", path: `${base}/activate`, handle: async (req) => ({ data: await desk.activate(req.params.partner, req.body) }) },
    {
      method: "POST",
      path: `${base}/:terminal_id/deactivate`,
      handle: async (req) => {
        await desk.deactivate(req.params.partner, req.params.terminal_id);
        return { data: null };
      },
    },
    {
      method: "PUT",
      path: `${base}/:terminal_id`,
      handle: async (req) => {
        await desk.update(req.params.partner, req.params.terminal_id, req.body);
        return { data: null };
      },
    },
    {
      method: "POST",
      path: `${base}/:terminal_id/assignment`,
      handle: async (req) => {
        await desk.assign(req.params.partner, req.params.terminal_id, req.body);
        return { data: null };
      },
    },
    { method: "GET", path: `${base}/:terminal_id`, handle: async (req) => ({ data: await desk.terminal(req.params.partner, req.params.terminal_id) }) },
    { method: "GET", path: `/payments/:partner/${FACS}`, handle: async (req) => ({ data: await desk.facs(req.params.partner) }) },
    { method: "GET", path: `/payments/:partner/${FACS}/:id`, handle: async (req) => ({ data: await desk.fac(req.params.partner, req.params.id) }) },
  ];
};

/**
 * As the PTP: `GET /admin/v1/payments/withheld-financial-advice-confirmations[?offset&limit]`,
 * the FACs no single CPO party can be found for (fac-owner.ts), hidden
 * from every partner, oldest first: with the reason, the CPO parties
 * claiming each, and the one it was already delivered to (`delivered_to`,
 * null when none) if another's claim came after its push.
 */
export const withheldFacsRoute = (owners: FacOwners): AdminRoute => ({
  method: "GET",
  path: "/payments/withheld-financial-advice-confirmations",
  handle: async (req) => {
    const offset = count(req.query.offset, "offset", 0);
    const limit = Math.min(count(req.query.limit, "limit", 100), 1000);
    return { data: await owners.withheld({ offset, limit }) };
  },
});

const count = (value: string | undefined, name: string, fallback: number): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw invalid(`${name}: must be a whole number ≥ 0`);
  return n;
};
