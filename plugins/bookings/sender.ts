import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import { invalid, notFound } from "../../core/contract/errors";
import { inScope } from "../../core/contract/port-context";
import { sameCiString } from "../../core/model/common-schemas";
import { parseDateTime } from "../../core/protocol/datetime";
import { BOOKING_LOCATIONS, type BookingLocation, type BookingRequest, type Calendar } from "./model";
import type { BookingsSenderPort, TimeslotWindow } from "./ports";
import type { BookingDesk } from "./booking-desk";
import { bookingLocationType, bookingRequestType, bookingType, calendarType } from "./translate";

/** timeslot_from / timeslot_to of the booking_locations GETs (OCPI 2.3.0 Bookings, Sender interface), epoch ms. */
const windowOf = (req: OcpiRequest): TimeslotWindow => {
  const window: TimeslotWindow = {};
  for (const [name, bound] of [["timeslot_from", "from"], ["timeslot_to", "to"]] as const) {
    const value = req.query[name];
    if (value === undefined) continue;
    const ms = parseDateTime(value);
    if (ms === undefined) throw invalid(`query parameter ${name} must be an OCPI DateTime (UTC, e.g. 2024-01-31T12:00:00Z)`);
    window[bound] = ms;
  }
  if (window.from !== undefined && window.to !== undefined && window.to <= window.from) throw invalid("query parameter timeslot_to must be after timeslot_from");
  return window;
};

/** A calendar with only the available timeslots overlapping the window (the backend's own filter, applied again here). */
const calendarWithin = (calendar: Calendar, window: TimeslotWindow): Calendar => ({
  ...calendar,
  available_timeslots: calendar.available_timeslots.filter(
    (slot) =>
      (window.to === undefined || parseDateTime(slot.start_date_time)! < window.to) &&
      (window.from === undefined || parseDateTime(slot.end_date_time)! > window.from),
  ),
});

const locationWithin = (location: BookingLocation, window: TimeslotWindow): BookingLocation =>
  location.calendars ? { ...location, calendars: location.calendars.map((c) => calendarWithin(c, window)) } : location;

/** The checks of a BookingRequest beyond its schema: who asks, for whose tokens, for which period. */
const checkRequest = (req: OcpiRequest<BookingRequest>, now: number): void => {
  const request = req.body;
  const requester = { country_code: request.country_code, party_id: request.party_id };
  // the booking belongs to the requesting eMSP: it must be one of the partner's parties, as must every token's owner
  if (!inScope(req.port.scope, requester)) throw invalid(`/party_id: ${request.country_code}/${request.party_id} is not one of your parties`);
  (request.tokens ?? []).forEach((token, i) => {
    if (!sameCiString(token.country_code, request.country_code) || !sameCiString(token.party_id, request.party_id))
      throw invalid(`/tokens/${i}/party_id: the token of ${token.country_code}/${token.party_id} is not the requesting party's`);
  });
  const start = parseDateTime(request.period.start_date_time)!;
  const end = parseDateTime(request.period.end_date_time)!;
  if (end <= start) throw invalid("/period/end_date_time: must be after start_date_time");
  if (!request.canceled && end <= now) throw invalid("/period/end_date_time: the period is over");
};

/**
 * Sender interface (we are the CPO; OCPI 2.3.0 Bookings extension): our BookingLocations with the timeslots
 * free now, one of them or one of its Calendars, the bookings of the partner's parties, and POST of a
 * BookingRequest, which the desk takes (a new booking, or a change or cancellation under a known request_id)
 * and answers with the Booking. The bookings list holds only the bookings the partner's parties requested.
 */
export const senderRoutes = (port: BookingsSenderPort, desk: BookingDesk, now: () => number = Date.now): RouteSpec[] => {
  const location = async (req: OcpiRequest): Promise<BookingLocation> => {
    const window = windowOf(req);
    const found = await port.getLocation(req.params.booking_location_id, window, req.port);
    if (!found) throw notFound("BookingLocation");
    return locationWithin(found, window);
  };
  return [
    {
      method: "GET",
      path: `/${BOOKING_LOCATIONS}`,
      paginated: true,
      response: bookingLocationType,
      handle: async (req) => {
        const window = windowOf(req);
        const page = await port.listLocations({ ...req.page, window }, req.port);
        return { page: { ...page, items: page.items.map((l) => locationWithin(l, window)) } };
      },
    },
    {
      method: "GET",
      path: `/${BOOKING_LOCATIONS}/:booking_location_id`,
      response: bookingLocationType,
      handle: async (req) => ({ data: await location(req) }),
    },
    {
      method: "GET",
      path: `/${BOOKING_LOCATIONS}/:booking_location_id/:calendar_id`,
      response: calendarType,
      handle: async (req) => {
        const calendar = (await location(req)).calendars?.find((c) => sameCiString(c.id, req.params.calendar_id));
        if (!calendar) throw notFound("Calendar");
        return { data: calendar };
      },
    },
    {
      method: "GET",
      path: "",
      paginated: true,
      // the list depends on who asks (a booking belongs to the eMSP that requested it)
      cache: "per-scope",
      response: bookingType,
      handle: async (req) => ({ page: await port.listBookings(req.page, req.port) }),
    },
    {
      method: "POST",
      path: "",
      body: { type: bookingRequestType, mode: "full" },
      response: bookingType,
      handle: async (req: OcpiRequest<BookingRequest>) => {
        checkRequest(req, now());
        return { data: await desk.take(req.body, req.port) };
      },
    },
  ];
};
