import type { AdminRoute } from "../../core/contract/admin-route";
import { invalid, notFound } from "../../core/contract/errors";
import { OcpiError } from "../../core/contract/errors";
import { Status } from "../../core/protocol/status";
import type { PartyRef } from "../../core/protocol/types";
import { BOOKING_LOCATIONS, CANCELED_REASONS, type CanceledReason } from "./model";
import type { BookingsClient } from "./client";
import type { BookingDesk } from "./booking-desk";

const reasonOf = (body: unknown): string | undefined => {
  const reason = (body as { cancellation_reason?: unknown } | null)?.cancellation_reason;
  if (reason !== undefined && typeof reason !== "string") throw invalid("/cancellation_reason: must be a string");
  return reason;
};

/**
 * As the eMSP, the backend's bookings at a CPO partner (admin API, `/admin/v1/bookings/<partner>…`); the CLI
 * (`ocpi-gateway bookings`) does the same through the same BookingsClient:
 *
 *   POST /bookings/<partner>                       body: BookingRequest (requester, request_id, authorization_reference may be left out) → the Booking
 *   POST /bookings/<partner>/<booking_id>/cancel   body: { cancellation_reason? } → the Booking after
 *   GET  /bookings/<partner>                       the CPO's list of our bookings
 *   GET  /bookings/<partner>/booking_locations     the CPO's BookingLocations and free timeslots
 *   GET  /bookings/<partner>/<booking_id>          the booking as we hold it (its answer, then the CPO's pushes)
 */
export const emspAdminRoutes = (client: BookingsClient): AdminRoute[] => [
  { method: "POST", path: "/bookings/:partner", handle: async (req) => ({ data: await client.request(req.params.partner, req.body) }) },
  {
    method: "POST",
    path: "/bookings/:partner/:booking_id/cancel",
    handle: async (req) => ({ data: await client.cancel(req.params.partner, req.params.booking_id, reasonOf(req.body)) }),
  },
  { method: "GET", path: "/bookings/:partner", handle: async (req) => ({ data: await client.bookings(req.params.partner) }) },
  { method: "GET", path: `/bookings/:partner/${BOOKING_LOCATIONS}`, handle: async (req) => ({ data: await client.locations(req.params.partner) }) },
  { method: "GET", path: "/bookings/:partner/:booking_id", handle: async (req) => ({ data: await client.held(req.params.partner, req.params.booking_id) }) },
];

/**
 * As the CPO: `POST /admin/v1/bookings/own/<country_code>/<party_id>/<booking_id>/cancel` with
 * `{ cancellation_reason }`: our backend cancels one of our RESERVED bookings (a broken charger…), at any time
 * before it ends; the eMSP gets the CANCELED booking pushed.
 */
export const cpoAdminRoutes = (desk: BookingDesk): AdminRoute[] => [
  {
    method: "POST",
    path: "/bookings/own/:country_code/:party_id/:booking_id/cancel",
    handle: async (req) => {
      const reason = reasonOf(req.body) ?? "UNKNOWN";
      if (!(CANCELED_REASONS as readonly string[]).includes(reason)) throw invalid(`/cancellation_reason: must be one of ${CANCELED_REASONS.join(", ")}`);
      const party: PartyRef = { country_code: req.params.country_code.toUpperCase(), party_id: req.params.party_id.toUpperCase() };
      const report = await desk.cancelForCpo(req.params.booking_id, reason as CanceledReason, { party });
      if (report.outcome === "unknown") throw notFound(`Booking ${req.params.booking_id}`);
      if (report.outcome === "refused") throw new OcpiError(Status.INVALID_PARAMETERS, report.reason);
      return { data: report.booking };
    },
  },
];
