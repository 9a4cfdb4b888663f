/**
 * The gateway's own API for the backend behind it (not for roaming
 * partners): change events from a legacy system, commands an eMSP backend
 * issues, on-demand syncs. Bearer-token protected with `server.admin_token`;
 * off when no token is configured. Answers use the same envelope.
 */
export interface AdminRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** relative to /admin/v1 */
  path: string;
  handle(req: AdminRequest): Promise<{ data?: unknown; httpStatus?: number }>;
}

export interface AdminRequest {
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  requestId: string;
}
