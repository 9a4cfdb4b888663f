/**
 * Canonical objects of the bookings module (OCPI 2.3.0 Bookings extension, module version 1.1). The data
 * owner is the CPO: it publishes BookingLocations with their Calendars and available Timeslots, takes an
 * eMSP's BookingRequest and answers with a Booking, whose status it pushes to that eMSP on every change.
 * Objects are open: unknown properties are kept. The ambiguities of the draft text and how they are read
 * here are listed in docs/bookings.md.
 */
import type { TokenType } from "../tokens/model";

/** Booking.reservation_status (OCPI 2.3.0 Bookings, ReservationStatus enum). */
export const RESERVATION_STATUSES = ["PENDING", "RESERVED", "CANCELED", "FAILED", "NO_SHOW", "FULFILLED", "REJECTED", "UNKNOWN"] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];

/** BookingRequestStatus.request_status: what became of one request on the booking. */
export const RESERVATION_REQUEST_STATUSES = ["PENDING", "ACCEPTED", "DECLINED", "FAILED"] as const;
export type ReservationRequestStatus = (typeof RESERVATION_REQUEST_STATUSES)[number];

export const ACCESS_METHODS = ["OPEN", "TOKEN", "LICENSE_PLATE", "ACCESS_CODE", "INTERCOM", "PARKING_TICKET"] as const;
export type AccessMethod = (typeof ACCESS_METHODS)[number];

export const CANCELED_REASONS = ["POWER_OUTAGE", "BROKEN_CHARGER", "FULL", "BLOCKED", "TRAFFIC", "BROKEN_VEHICLE", "NO_CANCELED", "UNKNOWN"] as const;
export type CanceledReason = (typeof CANCELED_REASONS)[number];

/** Cancellation.who_canceled: the role of the party that canceled (CPO or EMSP). */
export type CancelingRole = "CPO" | "EMSP" | (string & {});

/** A span of time with the power on offer (OCPI 2.3.0 Bookings, Timeslot); powers in W. */
export interface Timeslot {
  start_date_time: string;
  end_date_time: string;
  min_power?: number;
  max_power?: number;
  green_energy_support?: boolean;
  [extra: string]: unknown;
}

/** The span a BookingRequest asks for (OCPI 2.3.0 Bookings, Period). */
export interface Period {
  start_date_time: string;
  end_date_time: string;
  [extra: string]: unknown;
}

/** What can be booked at a BookingLocation, and what a request narrows it to. */
export interface BookingOption {
  /** `#NA` when no particular EVSE is booked */
  evse_uid?: string;
  connector_id?: string;
  parking_id?: string;
  evse_position?: string[];
  vehicle_types?: string[];
  connector_format?: string[];
  connector_types?: string[];
  power_types?: string[];
  max_vehicle_weight?: number;
  max_vehicle_height?: number;
  max_vehicle_length?: number;
  max_vehicle_width?: number;
  min_parking_space_length?: number;
  min_parking_space_width?: number;
  dangerous_goods_allowed?: boolean;
  drive_through?: boolean;
  refrigeration_outlet?: boolean;
  [extra: string]: unknown;
}

/** The terms a booking is taken under; times in minutes. */
export interface BookingTerms {
  rfid_auth_required?: boolean;
  token_groups_supported?: boolean;
  remote_auth_supported?: boolean;
  supported_access_methods: AccessMethod[];
  /** a change is taken until this many minutes before the period starts */
  change_until_minutes: number;
  /** a cancellation is taken until this many minutes before the period starts */
  cancel_until_minutes: number;
  change_not_allowed?: boolean;
  early_start_allowed?: boolean;
  early_start_time?: number;
  /** minutes after the period's start without a session after which the booking is a NO_SHOW */
  noshow_timeout?: number;
  noshow_fee?: boolean;
  late_stop_allowed?: boolean;
  late_stop_time?: number;
  overlapping_bookings_allowed?: boolean;
  min_booking_duration?: number;
  max_booking_duration?: number;
  booking_terms?: string;
  [extra: string]: unknown;
}

export interface Policy {
  reservation_required: boolean;
  ad_hoc?: number;
  [extra: string]: unknown;
}

export interface AccessInformation {
  method: AccessMethod;
  value?: string;
  [extra: string]: unknown;
}

/** A token the booking may be used with: its owner is the eMSP the booking belongs to. */
export interface BookingToken {
  country_code: string;
  party_id: string;
  uid: string;
  type: TokenType;
  contract_id: string;
  [extra: string]: unknown;
}

export interface Cancellation {
  cancellation_reason: CanceledReason;
  who_canceled: CancelingRole;
  [extra: string]: unknown;
}

/** The bookable timeslots of one resource of a BookingLocation. */
export interface Calendar {
  id: string;
  begin_from: string;
  end_before: string;
  /** minutes: a booked period starts and ends on a multiple of it from begin_from */
  timeslot_increment?: number;
  available_timeslots: Timeslot[];
  last_updated: string;
  [extra: string]: unknown;
}

/** A bookable place of one of the CPO's Locations. */
export interface BookingLocation {
  country_code: string;
  party_id: string;
  id: string;
  location_id: string;
  booking_option?: BookingOption;
  policy?: Policy;
  tariff_ids?: string[];
  booking_terms?: BookingTerms;
  calendars?: Calendar[];
  last_updated: string;
  [extra: string]: unknown;
}

/** What an eMSP asks of the CPO (POST to the Sender); a change or cancellation repeats its request_id. */
export interface BookingRequest {
  /** the requesting eMSP */
  country_code: string;
  party_id: string;
  request_id: string;
  booking_option?: BookingOption;
  location_id: string;
  booking_location_id: string;
  tokens?: BookingToken[];
  access_information?: AccessInformation[];
  period: Period;
  authorization_reference: string;
  /** kW */
  power_required?: number;
  canceled?: Cancellation;
  [extra: string]: unknown;
}

/** One request taken on a booking, with what became of it. */
export interface BookingRequestStatus {
  request_status: ReservationRequestStatus;
  booking_request: BookingRequest;
  request_received: string;
  [extra: string]: unknown;
}

/** A booking of the CPO (country_code/party_id: the CPO), held for the eMSP that requested it. */
export interface Booking {
  id: string;
  country_code: string;
  party_id: string;
  request_id: string;
  booking_option?: BookingOption;
  location_id: string;
  booking_tokens?: BookingToken[];
  tariff_ids?: string[];
  period: Timeslot;
  reservation_status: ReservationStatus;
  canceled?: Cancellation;
  access_information?: AccessInformation[];
  authorization_reference: string;
  booking_terms: BookingTerms;
  /** oldest first */
  booking_requests: BookingRequestStatus[];
  last_updated: string;
  [extra: string]: unknown;
}

/** A PATCH of a Booking at an eMSP's Receiver: any fields, last_updated required. */
export type BookingPatch = Partial<Booking> & { last_updated: string };

/** The path segment below the module's URL under which BookingLocations are served. */
export const BOOKING_LOCATIONS = "booking_locations";

/** The eMSP a booking belongs to: the party that requested it (its first request). */
export const bookingOwnerOf = (booking: Booking): { country_code: string; party_id: string } => {
  const { country_code, party_id } = booking.booking_requests[0].booking_request;
  return { country_code, party_id };
};
