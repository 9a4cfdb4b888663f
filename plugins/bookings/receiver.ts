import type { OcpiRequest, RouteSpec } from "../../core/contract/module-plugin";
import type { UpdatablePort } from "../../core/modules/update-stored";
import { changeStored, patchStored, putWhole, written, type ChangeRule } from "../../core/modules/receiver-writes";
import { checkBodyIdentity } from "../../core/modules/receiver-rules";
import { invalid, notFound } from "../../core/contract/errors";
import { sameCiString } from "../../core/model/common-schemas";
import { BOOKING_LOCATIONS, type Booking, type BookingLocation, type Calendar } from "./model";
import type { BookingsReceiverPort } from "./ports";
import { bookingLocationType, bookingType, calendarType } from "./translate";

const OWNER = "/:country_code/:party_id";
const LOCATION = `${OWNER}/${BOOKING_LOCATIONS}/:booking_location_id`;
const CALENDAR = `${LOCATION}/:calendar_id`;
const BOOKING = `${OWNER}/:booking_id`;

/** The Receiver port's bookings as the generic PUT/PATCH rules take them. */
export const bookingsOf = (port: BookingsReceiverPort): UpdatablePort<string, Booking> => ({
  get: (owner, id, ctx) => port.getBooking(owner, id, ctx),
  put: (owner, booking, ctx) => port.putBooking(owner, booking, ctx),
});

const locationsOf = (port: BookingsReceiverPort): UpdatablePort<string, BookingLocation> => ({
  get: (owner, id, ctx) => port.getLocation(owner, id, ctx),
  put: (owner, location, ctx) => port.putLocation(owner, location, ctx),
});

/** A change must leave a valid BookingLocation (or Booking: objectRoutes), whatever the partner's strictness. */
const LOCATION_CHANGES: ChangeRule<BookingLocation> = { type: bookingLocationType, alwaysRefused: true };

const idOf = (req: OcpiRequest, param: string): string => {
  const id = req.params[param];
  if (id.length > 36) throw invalid(`path ${param} must be at most 36 characters`);
  return id;
};

/** The location with `calendar` in place of the one with its id (or added last), and the location's last_updated moved along. */
const withCalendar = (location: BookingLocation, calendar: Calendar): BookingLocation => {
  const current = location.calendars ?? [];
  const held = current.some((c) => sameCiString(c.id, calendar.id));
  const calendars = held ? current.map((c) => (sameCiString(c.id, calendar.id) ? calendar : c)) : [...current, calendar];
  const last_updated = calendar.last_updated > location.last_updated ? calendar.last_updated : location.last_updated;
  return { ...location, calendars, last_updated };
};

/** GET, PUT and PATCH of one stored object at `path` (its id the path's `param`), PATCH merged by `merge`. */
const objectRoutes = <T extends { id: string }>(
  path: string,
  param: string,
  name: string,
  type: ChangeRule<T>["type"],
  held: UpdatablePort<string, T>,
  merge: (current: T, fragment: Partial<T>) => T,
): RouteSpec[] => [
  {
    method: "GET",
    path,
    response: type,
    handle: async (req) => {
      const object = await held.get(req.owner!, idOf(req, param), req.port);
      if (!object) throw notFound(name);
      return { data: object };
    },
  },
  {
    method: "PUT",
    path,
    body: { type, mode: "full" },
    handle: async (req) => putWhole(req, held, { id: idOf(req, param) }),
  },
  {
    method: "PATCH",
    path,
    body: { type, mode: "patch" },
    handle: async (req) => {
      const id = idOf(req, param);
      const fragment = req.body as Partial<T>;
      const patched = await patchStored(req, held, id, { id }, (current) => merge(current, fragment), { type, alwaysRefused: true });
      if (!patched) throw notFound(name);
      return written();
    },
  },
];

/**
 * Receiver interface (we are the eMSP; OCPI 2.3.0 Bookings extension): the CPO pushes its BookingLocations
 * (a Calendar alone too: a change of a Calendar also moves its BookingLocation's last_updated) and our
 * Bookings on every status change. GET, PUT and PATCH; the owner in the path is the CPO's party, checked
 * against the partner's parties by the kernel and against the body here.
 */
export const receiverRoutes = (port: BookingsReceiverPort): RouteSpec[] => {
  const locations = locationsOf(port);
  const bookings = bookingsOf(port);
  return [
    // booking_terms are merged field by field: the spec's own terms PATCH example sends only the fields it changes
    ...objectRoutes(LOCATION, "booking_location_id", "BookingLocation", bookingLocationType, locations, (current, fragment) => ({
      ...current,
      ...fragment,
      ...(fragment.booking_terms && current.booking_terms ? { booking_terms: { ...current.booking_terms, ...fragment.booking_terms } } : {}),
    })),
    {
      method: "GET",
      path: CALENDAR,
      response: calendarType,
      handle: async (req) => {
        const location = await port.getLocation(req.owner!, idOf(req, "booking_location_id"), req.port);
        const calendar = location?.calendars?.find((c) => sameCiString(c.id, req.params.calendar_id));
        if (!calendar) throw notFound("Calendar");
        return { data: calendar };
      },
    },
    {
      method: "PUT",
      path: CALENDAR,
      body: { type: calendarType, mode: "full" },
      handle: async (req) => {
        const calendarId = idOf(req, "calendar_id");
        checkBodyIdentity(req.body as Record<string, unknown>, req.owner!, { id: calendarId });
        const calendar = { ...(req.body as Calendar), id: (req.body as Calendar).id ?? calendarId };
        const changed = await changeStored(req, locations, idOf(req, "booking_location_id"), (l) => withCalendar(l, calendar), LOCATION_CHANGES, "PUT");
        if (!changed) throw notFound("BookingLocation");
        return written();
      },
    },
    {
      method: "PATCH",
      path: CALENDAR,
      body: { type: calendarType, mode: "patch" },
      handle: async (req) => {
        const calendarId = idOf(req, "calendar_id");
        checkBodyIdentity(req.body as Record<string, unknown>, req.owner!, { id: calendarId });
        let found = false;
        const changed = await changeStored(
          req,
          locations,
          idOf(req, "booking_location_id"),
          (l) => {
            const current = l.calendars?.find((c) => sameCiString(c.id, calendarId));
            found = current !== undefined;
            return current ? withCalendar(l, { ...current, ...(req.body as Partial<Calendar>) }) : l;
          },
          LOCATION_CHANGES,
        );
        if (!changed || !found) throw notFound("Calendar");
        return written();
      },
    },
    ...objectRoutes(BOOKING, "booking_id", "Booking", bookingType, bookings, (current, fragment) => ({ ...current, ...fragment })),
  ];
};
