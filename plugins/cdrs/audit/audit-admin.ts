import type { AdminRoute } from "../../../core/contract/admin-route";
import { invalid, notFound } from "../../../core/contract/errors";
import type { AuditQuery, AuditStore } from "./audit-store";
import { VERDICTS, type CdrAudit, type Verdict } from "./model";

const MAX_LIMIT = 1000;

/** `?partner=&verdict=&since=&offset=&limit=` as an AuditQuery; 2001 naming the parameter when one is wrong. */
export const auditQueryOf = (query: Record<string, string | undefined>): AuditQuery => {
  const { partner, verdict, since, offset = "0", limit = "100" } = query;
  if (verdict !== undefined && !VERDICTS.includes(verdict as Verdict)) throw invalid(`verdict: must be one of ${VERDICTS.join(", ")}`);
  const sinceMs = since === undefined ? undefined : Date.parse(since);
  if (sinceMs !== undefined && Number.isNaN(sinceMs)) throw invalid("since: must be a date and time (RFC 3339), e.g. 2024-06-03T00:00:00Z");
  const [from, count] = [Number(offset), Number(limit)];
  if (!Number.isInteger(from) || from < 0) throw invalid("offset: must be a whole number from 0");
  if (!Number.isInteger(count) || count < 1 || count > MAX_LIMIT) throw invalid(`limit: must be a whole number from 1 to ${MAX_LIMIT}`);
  return {
    ...(partner ? { partner } : {}),
    ...(verdict ? { verdict: verdict as Verdict } : {}),
    ...(sinceMs !== undefined ? { since: sinceMs } : {}),
    offset: from,
    limit: count,
  };
};

/**
 * The CDR audit on the admin API: `GET /admin/v1/audit/cdrs` lists the audits
 * (oldest first, `offset`/`limit`, filtered by `partner`, `verdict`, `since`),
 * `GET /admin/v1/audit/cdrs/{id}` shows the audits of CDRs with that id, with
 * every difference and the re-pricing explained.
 */
export const auditAdminRoutes = (audits: AuditStore, byId: (id: string) => Promise<CdrAudit[]>): AdminRoute[] => [
  {
    method: "GET",
    path: "/audit/cdrs",
    handle: async (req) => {
      const query = auditQueryOf(req.query);
      const page = await audits.list(query);
      return { data: { offset: query.offset, limit: query.limit, total: page.total, audits: page.items } };
    },
  },
  {
    method: "GET",
    path: "/audit/cdrs/:id",
    handle: async (req) => {
      const found = await byId(req.params.id);
      if (!found.length) throw notFound(`audit of CDR ${req.params.id}`);
      return { data: found };
    },
  },
];
