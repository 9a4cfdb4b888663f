import { z } from "zod";
import { ciString, countryCode, dateTime, enumeration, nonEmptyArray, partyId, patchOf, text, url } from "../../core/model/common-schemas";
import { ACCESS_METHODS, CANCELED_REASONS, RESERVATION_REQUEST_STATUSES, RESERVATION_STATUSES } from "./model";

/**
 * Wire schemas of the bookings module, OCPI 2.3.0 only (Bookings extension 1.1). Optional fields may be absent
 * (cardinality `?`/`*`). The module's own enumerations are closed: the lifecycle is built on
 * ReservationStatus. Lists of vehicle types, connector types and the like are open strings.
 */

const number = () => z.number({ message: "must be a number" });
const integer = () => z.int({ message: "must be an integer" });
const strings = () => z.array(text(255));

const timeslot = () =>
  z.looseObject({
    start_date_time: dateTime(),
    end_date_time: dateTime(),
    min_power: number().optional(),
    max_power: number().optional(),
    green_energy_support: z.boolean().optional(),
  });

const period = () => z.looseObject({ start_date_time: dateTime(), end_date_time: dateTime() });

const bookingOption = () =>
  z.looseObject({
    evse_uid: ciString(36).optional(),
    connector_id: ciString(36).optional(),
    parking_id: ciString(36).optional(),
    evse_position: strings().optional(),
    vehicle_types: strings().optional(),
    connector_format: strings().optional(),
    connector_types: strings().optional(),
    power_types: strings().optional(),
    max_vehicle_weight: number().optional(),
    max_vehicle_height: number().optional(),
    max_vehicle_length: number().optional(),
    max_vehicle_width: number().optional(),
    min_parking_space_length: number().optional(),
    min_parking_space_width: number().optional(),
    dangerous_goods_allowed: z.boolean().optional(),
    drive_through: z.boolean().optional(),
    refrigeration_outlet: z.boolean().optional(),
  });

const minutes = () => number().min(0, { message: "must be >= 0" });

const bookingTerms = () =>
  z.looseObject({
    rfid_auth_required: z.boolean().optional(),
    token_groups_supported: z.boolean().optional(),
    remote_auth_supported: z.boolean().optional(),
    supported_access_methods: nonEmptyArray(enumeration(ACCESS_METHODS)),
    change_until_minutes: minutes(),
    cancel_until_minutes: minutes(),
    change_not_allowed: z.boolean().optional(),
    early_start_allowed: z.boolean().optional(),
    early_start_time: minutes().optional(),
    noshow_timeout: minutes().optional(),
    noshow_fee: z.boolean().optional(),
    late_stop_allowed: z.boolean().optional(),
    late_stop_time: minutes().optional(),
    overlapping_bookings_allowed: z.boolean().optional(),
    min_booking_duration: minutes().optional(),
    max_booking_duration: minutes().optional(),
    booking_terms: url().optional(),
  });

const accessInformation = () => z.looseObject({ method: enumeration(ACCESS_METHODS), value: text(255).optional() });

const bookingToken = () =>
  z.looseObject({ country_code: countryCode(), party_id: partyId(), uid: ciString(36), type: text(255).min(1), contract_id: ciString(36) });

const cancellation = () => z.looseObject({ cancellation_reason: enumeration(CANCELED_REASONS), who_canceled: text(255).min(1) });

export const calendarShape = () => ({
  id: ciString(36),
  begin_from: dateTime(),
  end_before: dateTime(),
  timeslot_increment: integer().min(1, { message: "must be >= 1" }).optional(),
  // a calendar fully booked has none left (the draft says `+`): docs/bookings.md
  available_timeslots: z.array(timeslot()),
  last_updated: dateTime(),
});

export const calendarSchema = () => z.looseObject(calendarShape());

const bookingLocationShape = () => ({
  country_code: countryCode(),
  party_id: partyId(),
  id: ciString(36),
  location_id: ciString(36),
  booking_option: bookingOption().optional(),
  policy: z.looseObject({ reservation_required: z.boolean(), ad_hoc: number().optional() }).optional(),
  tariff_ids: z.array(ciString(36)).optional(),
  booking_terms: bookingTerms().optional(),
  calendars: z.array(calendarSchema()).optional(),
  last_updated: dateTime(),
});

export const bookingLocationSchema = () => z.looseObject(bookingLocationShape());
/** booking_terms may come in part: merged into the stored ones field by field (the spec's terms PATCH example; docs/bookings.md) */
export const bookingLocationPatchSchema = () => patchOf({ ...bookingLocationShape(), booking_terms: bookingTerms().partial().optional() }, "2.3.0");
export const calendarPatchSchema = () => patchOf(calendarShape(), "2.3.0");

export const bookingRequestSchema = () =>
  z.looseObject({
    country_code: countryCode(),
    party_id: partyId(),
    request_id: ciString(36),
    booking_option: bookingOption().optional(),
    location_id: ciString(36),
    booking_location_id: ciString(36),
    tokens: z.array(bookingToken()).optional(),
    access_information: z.array(accessInformation()).optional(),
    period: period(),
    authorization_reference: ciString(36),
    power_required: integer().optional(),
    canceled: cancellation().optional(),
  });

const bookingShape = () => ({
  id: ciString(36),
  country_code: countryCode(),
  party_id: partyId(),
  request_id: ciString(36),
  booking_option: bookingOption().optional(),
  location_id: ciString(36),
  booking_tokens: z.array(bookingToken()).optional(),
  tariff_ids: z.array(ciString(36)).optional(),
  period: timeslot(),
  reservation_status: enumeration(RESERVATION_STATUSES),
  canceled: cancellation().optional(),
  access_information: z.array(accessInformation()).optional(),
  authorization_reference: ciString(36),
  booking_terms: bookingTerms(),
  booking_requests: nonEmptyArray(
    z.looseObject({ request_status: enumeration(RESERVATION_REQUEST_STATUSES), booking_request: bookingRequestSchema(), request_received: dateTime() }),
  ),
  last_updated: dateTime(),
});

export const bookingSchema = () => z.looseObject(bookingShape());
export const bookingPatchSchema = () => patchOf(bookingShape(), "2.3.0");
