import type { ChargingPeriod } from "../../../core/model/charging";
import type { Price } from "../../../core/model/price";
import type { Tariff, TariffType } from "../model";

/** One meter reading of a session, as an OCPP backend reports it (MeterValues). */
export interface MeterSample {
  /** RFC 3339 UTC instant */
  at: string;
  /** energy delivered since the session started, kWh, cumulative */
  kwh: number;
  /** charging power at this instant, kW; holds until the next sample that gives one */
  power_kw?: number;
  /** charging current summed over the phases, A (as min_current/max_current count it); holds like power_kw */
  current_a?: number;
}

/** The charging session: from plug-in to plug-out. */
export interface SessionTimeline {
  start: string;
  end: string;
  /** when the EV stopped charging; from then to `end` is PARKING_TIME. Absent: charging until `end`. */
  charging_end?: string;
  /** in any order; energy is interpolated linearly between samples, 0 kWh at `start` unless a sample says otherwise */
  samples: MeterSample[];
}

/** A reservation made before the session (Commands RESERVE_NOW), or a booking (OCPI 2.3.0 Bookings extension). */
export interface ReservationTimeline {
  /** when the reservation was made */
  start: string;
  /** when the session started on it, or when it expired */
  end: string;
  /** true: it expired without a session, so RESERVATION_EXPIRES elements apply */
  expired: boolean;
  /**
   * true: a booking (from when it was made to the session's start, or to its no-show), priced by the elements with a
   * `booking` restriction (BOOKING; BOOKING_EXPIRES first when expired) instead of those with `reservation`
   */
  booking?: boolean;
}

export interface PricingInput {
  /** the Connector's tariffs (Connector.tariff_ids), tried in this order */
  tariffs: Tariff[];
  /** which TariffType the session calls for; default REGULAR (RFID without charging preferences) */
  tariff_type?: TariffType;
  /** IANA name, Location.time_zone */
  time_zone: string;
  /** absent only for a reservation that expired without a session */
  session?: SessionTimeline;
  reservation?: ReservationTimeline;
}

/** Everything a CDR (or a Session's running totals) needs about cost. */
export interface PricedSession {
  /** the tariff that priced the session (a CDR's `tariffs`); absent when none of the candidates applied */
  tariff?: Tariff;
  /** the CDR's start: the reservation's start when there was one */
  start_date_time: string;
  end_date_time: string;
  charging_periods: ChargingPeriod[];
  total_cost: Price;
  total_fixed_cost?: Price;
  total_energy: number;
  total_energy_cost?: Price;
  total_time: number;
  total_time_cost?: Price;
  total_parking_time: number;
  total_parking_cost?: Price;
  total_reservation_cost?: Price;
}
