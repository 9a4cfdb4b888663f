import type { z } from "zod";
import { defineObjectType } from "../../core/model/object-type";
import type { VersionNumber } from "../../core/protocol/types";
import type { Booking, BookingLocation, BookingRequest, Calendar } from "./model";
import {
  bookingLocationPatchSchema,
  bookingLocationSchema,
  bookingPatchSchema,
  bookingRequestSchema,
  bookingSchema,
  calendarPatchSchema,
  calendarSchema,
} from "./schemas";

/**
 * The object types of the bookings module. The module is served in 2.3.0 only (BookingsPlugin.versions): the
 * other versions' entries only complete the record, and nothing is translated.
 */
const only230 = (schema: () => z.ZodType): Record<VersionNumber, z.ZodType> => {
  const built = schema();
  return { "2.3.0": built, "2.2.1": built, "2.1.1": built };
};

export const bookingLocationType = defineObjectType<BookingLocation>({
  name: "BookingLocation",
  schemas: only230(bookingLocationSchema),
  patchSchemas: { "2.3.0": bookingLocationPatchSchema() },
  translators: {},
});

export const calendarType = defineObjectType<Calendar>({
  name: "Calendar",
  schemas: only230(calendarSchema),
  patchSchemas: { "2.3.0": calendarPatchSchema() },
  translators: {},
});

export const bookingType = defineObjectType<Booking>({
  name: "Booking",
  schemas: only230(bookingSchema),
  patchSchemas: { "2.3.0": bookingPatchSchema() },
  translators: {},
});

export const bookingRequestType = defineObjectType<BookingRequest>({
  name: "BookingRequest",
  schemas: only230(bookingRequestSchema),
  translators: {},
});
