import type { AdminRoute } from "../contract/admin-route";
import { OcpiError, invalid } from "../contract/errors";
import { Status } from "../protocol/status";
import { PartnerCallError } from "../client/ocpi-client";
import { SyncBusyError, SyncRequestError, type SyncPuller } from "./sync-puller";

/**
 * `POST /admin/v1/sync/:partner/:module[?full=true]`: runs a pull now and
 * answers its counts. A pull already running answers HTTP 409; a partner
 * failing the pull answers 3001 with HTTP 502 (the watermark stays either way).
 */
export const syncAdminRoutes = (puller: SyncPuller): AdminRoute[] => [
  {
    method: "POST",
    path: "/sync/:partner/:module",
    handle: async ({ params, query }) => {
      if (query.full !== undefined && query.full !== "true" && query.full !== "false") throw invalid("query parameter full must be true or false");
      try {
        return { data: await puller.pull(params.partner, params.module, { full: query.full === "true", trigger: "on demand" }) };
      } catch (error) {
        if (error instanceof SyncRequestError) throw invalid(error.message);
        if (error instanceof SyncBusyError) throw new OcpiError(Status.CLIENT_ERROR, error.message, 409);
        if (error instanceof PartnerCallError) throw new OcpiError(Status.CLIENT_API_UNREACHABLE, `The pull failed: ${error.message}`, 502);
        throw error;
      }
    },
  },
];
