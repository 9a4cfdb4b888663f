import type { Middleware } from "koa";
import type Router from "@koa/router";
import { bearerMatches } from "../http/bearer-auth";
import { ADMIN_ROOT } from "./admin-api";

/** An admin route as mounted: method and @koa/router path ("/admin/v1/outbox/:partner/dead-letters"). */
export interface MountedRoute {
  method: string;
  path: string;
}

interface Operation {
  summary: string;
  /** the request body, when there is one */
  body?: string;
  /** query parameters */
  query?: string[];
}

export const OPENAPI_PATH = `${ADMIN_ROOT}/openapi.json`;

/**
 * What each admin route does, by "METHOD /path" relative to /admin/v1 (README
 * sections Pushes, Commands and charging profiles, Sync pulls, Partners off
 * the spec). The document lists the routes that are mounted, described
 * from here; test/operating/openapi.test.ts fails on a mounted route this
 * table does not describe.
 */
export const ADMIN_OPERATIONS: Record<string, Operation> = {
  "GET /openapi.json": { summary: "This document: the admin API as OpenAPI 3" },
  "GET /repairs": { summary: "What strictness: repair repaired in partners' objects since the instance started, per partner, type, field and repair" },
  "GET /translation-losses": { summary: "Every field the served modules drop when an object goes to an older version" },
  "POST /sync/{partner}/{module}": { summary: "Pulls the partner's list of the module now; full=true ignores the watermark", query: ["full"] },
  "POST /events": { summary: "A change of our own data from the backend (module, owner, path, kind, object): stored, pushed to entitled partners", body: "DataChange" },
  "GET /outbox": { summary: "Per partner: queued, delivered, rejected, dropped, dead-lettered, last rejection, resync state and a failing queue's head" },
  "GET /outbox/{partner}/dead-letters": { summary: "The partner's dead letters, oldest first, at most 100 a page", query: ["offset", "limit"] },
  "POST /outbox/{partner}/dead-letters/retry": { summary: "Moves all the partner's dead letters back to the tail of its queue, in order" },
  "POST /outbox/{partner}/dead-letters/{id}/retry": { summary: "Moves one dead letter back to the tail of the partner's queue" },
  "POST /commands/{partner}/{command}": { summary: "Sends a command to the partner (body: the command without response_url); answers its uid and the partner's response", body: "Command" },
  "GET /commands/{uid}": { summary: "A sent command's state, response, result, timeout, late result and callbacks" },
  "POST /command-outcomes/{id}": { summary: "The backend's outcome (CommandResult) of a command the gateway received", body: "CommandResult" },
  "PUT /chargingprofiles/{partner}/{session_id}": { summary: "Sets a charging profile on the partner's session", body: "ChargingProfile" },
  "POST /chargingprofiles/{partner}/{session_id}/active": { summary: "Asks the partner for the session's active charging profile (body: { duration })", body: "ActiveProfileRequest" },
  "DELETE /chargingprofiles/{partner}/{session_id}": { summary: "Clears the charging profile of the partner's session" },
  "GET /chargingprofiles/requests/{uid}": { summary: "A sent charging-profile request's state and result" },
  "PUT /active-charging-profiles/{session_id}": { summary: "A new active profile from the backend, PUT to the partners that set one on the session", body: "ActiveChargingProfile" },
  "POST /payments/{partner}/terminals/activate": { summary: "Asks the partner (a PTP) to activate a payment terminal", body: "Terminal" },
  "POST /payments/{partner}/terminals/{terminal_id}/deactivate": { summary: "Asks the partner to deactivate a payment terminal" },
  "PUT /payments/{partner}/terminals/{terminal_id}": { summary: "Updates a payment terminal at the partner", body: "Terminal" },
  "POST /payments/{partner}/terminals/{terminal_id}/assignment": { summary: "Assigns a payment terminal to locations or EVSEs at the partner", body: "TerminalAssignment" },
  "GET /payments/{partner}/terminals/{terminal_id}": { summary: "A payment terminal as the partner has it" },
  "GET /payments/{partner}/terminals": { summary: "The partner's (a PTP's) list of our payment terminals" },
  "GET /payments/{partner}/financial-advice-confirmations": { summary: "The partner's (a PTP's) list of the financial advice confirmations it attributes to us" },
  "GET /payments/{partner}/financial-advice-confirmations/{id}": { summary: "A financial advice confirmation the partner posted or we pulled, with the Sessions and CDRs it paid for (linked)" },
  "GET /payments/withheld-financial-advice-confirmations": { summary: "As the PTP: FACs withheld from every partner because no single CPO party was found for them, with the reason" },
  "GET /invoices/{partner}": { summary: "Invoice Reconciliation records exchanged with the partner (issued to it, received from it), each with its findings" },
  "POST /invoices/{partner}": { summary: "Issues an Invoice Reconciliation record to the partner (body: invoice_id, cdrs, id?, to?) and pushes it", body: "InvoiceReconciliationRecord" },
  "PUT /invoices/{partner}/{id}": { summary: "Replaces invoice_id and cdrs of a record issued to the partner, pushed by PUT", body: "InvoiceReconciliationRecord" },
  "DELETE /invoices/{partner}/{id}": { summary: "Withdraws a record issued to the partner (it was wrong), pushed by DELETE" },
  "GET /audit/cdrs": { summary: "The CDR audit, oldest first (offset, limit), filtered by partner, verdict (match, mismatch, unpriceable) and since" },
  "GET /audit/cdrs/{id}": { summary: "The audits of CDRs with this id: verdict, differences and the re-pricing explained, with the invoices naming the CDR" },
  "POST /bookings/{partner}": { summary: "Sends a BookingRequest to the partner (a CPO); answers its Booking, held and followed by its pushes", body: "BookingRequest" },
  "POST /bookings/{partner}/{booking_id}/cancel": { summary: "Cancels a booking held from the partner: its last request again with canceled (body: { cancellation_reason? })" },
  "GET /bookings/{partner}": { summary: "The partner's (a CPO's) list of our bookings" },
  "GET /bookings/{partner}/booking_locations": { summary: "The partner's BookingLocations with their free timeslots" },
  "GET /bookings/{partner}/{booking_id}": { summary: "A booking as we hold it: the CPO's answer, then each status change it pushed" },
  "POST /bookings/own/{country_code}/{party_id}/{booking_id}/cancel": { summary: "As the CPO: cancels one of our RESERVED bookings (body: { cancellation_reason }); pushed to its eMSP" },
};

/** "/admin/v1/outbox/:partner/dead-letters" → "/outbox/{partner}/dead-letters" */
export const openApiPath = (routerPath: string): string => routerPath.slice(ADMIN_ROOT.length).replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const STATUS_ANSWERS = {
  "200": { description: "OCPI envelope; data as described", content: { "application/json": { schema: { $ref: "#/components/schemas/Envelope" } } } },
  "401": { description: "Missing or wrong admin token", content: { "application/json": { schema: { $ref: "#/components/schemas/Envelope" } } } },
};

/** The OpenAPI 3 document of the admin routes mounted, plus this document's own route. */
export const openApiDocument = (routes: readonly MountedRoute[]): Record<string, unknown> => {
  const paths: Record<string, Record<string, unknown>> = {};
  const all = [...routes.map((r) => ({ method: r.method, path: openApiPath(r.path) })), { method: "GET", path: "/openapi.json" }];
  for (const { method, path } of all) {
    const operation = ADMIN_OPERATIONS[`${method} ${path}`];
    const parameters = [
      ...[...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } })),
      ...(operation?.query ?? []).map((name) => ({ name, in: "query", required: false, schema: { type: "string" } })),
    ];
    (paths[path] ??= {})[method.toLowerCase()] = {
      summary: operation?.summary ?? "undocumented",
      operationId: `${method.toLowerCase()}${path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? "").toUpperCase())}`,
      ...(parameters.length ? { parameters } : {}),
      ...(operation?.body
        ? { requestBody: { required: true, content: { "application/json": { schema: { type: "object", description: `${operation.body} (2.3.0 form)` } } } } }
        : {}),
      responses: path === "/openapi.json" ? { "200": { description: "This document" }, "401": STATUS_ANSWERS["401"] } : STATUS_ANSWERS,
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "ocpi-gateway admin API", version: "1", description: "The gateway's API for the backend behind it (not for roaming partners). Bearer token: server.admin_token." },
    servers: [{ url: ADMIN_ROOT }],
    security: [{ adminToken: [] }],
    paths,
    components: {
      securitySchemes: { adminToken: { type: "http", scheme: "bearer", description: "server.admin_token" } },
      schemas: {
        Envelope: {
          type: "object",
          required: ["status_code", "timestamp"],
          properties: { data: {}, status_code: { type: "integer" }, status_message: { type: "string" }, timestamp: { type: "string", format: "date-time" } },
        },
      },
    },
  };
};

/** The admin routes the app's router has mounted. */
export const mountedAdminRoutes = (middleware: readonly unknown[]): MountedRoute[] => {
  const routers = middleware.map((m) => (m as { router?: Router }).router).filter((r): r is Router => r !== undefined);
  return routers.flatMap((router) =>
    router.stack
      .flatMap((layer) => (typeof layer.path === "string" && layer.path.startsWith(`${ADMIN_ROOT}/`) ? [{ layer, path: layer.path }] : []))
      .flatMap(({ layer, path }) => layer.methods.filter((m) => m !== "HEAD").map((method) => ({ method, path }))),
  );
};

/** `GET /admin/v1/openapi.json` (admin token): the document, built from the routes mounted in this app. */
export const openApiRoute =
  (adminToken: string | undefined): Middleware =>
  async (ctx, next) => {
    if (!adminToken || ctx.path !== OPENAPI_PATH || ctx.method !== "GET") return next();
    if (!bearerMatches(ctx.get("Authorization"), adminToken)) {
      ctx.status = 401;
      ctx.body = { status_code: 2000, status_message: "Admin API: unknown or missing bearer token", timestamp: new Date().toISOString() };
      return;
    }
    ctx.body = openApiDocument(mountedAdminRoutes(ctx.app.middleware));
  };
