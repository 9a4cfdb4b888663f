import { priceSession } from "../../plugins/tariffs/engine";
import type { Tariff } from "../../plugins/tariffs/model";
import type { Booking } from "../../plugins/bookings/model";
import { bookingTimeline } from "../../plugins/bookings/pricing";
import { BERLIN, excl, timeline } from "./tariff-engine.fixtures";

/** Booking fees (OCPI 2.3.0 Bookings extension: TariffRestrictions `booking`) priced by the tariff engine, hand-computed. */
describe("tariff engine: elements with a booking restriction", () => {
  const tariff: Tariff = {
    country_code: "NL",
    party_id: "GWY",
    id: "BOOKED",
    currency: "EUR",
    tax_included: "NO",
    elements: [
      { price_components: [{ type: "FLAT", price: 2, step_size: 1 }], restrictions: { booking: "BOOKING" } },
      { price_components: [{ type: "TIME", price: 1.2, step_size: 1 }], restrictions: { booking: "BOOKING" } },
      { price_components: [{ type: "FLAT", price: 5, step_size: 1 }], restrictions: { booking: "BOOKING_EXPIRES" } },
      { price_components: [{ type: "ENERGY", price: 0.3, step_size: 1 }] },
    ],
    last_updated: "2024-01-01T00:00:00Z",
  };
  const session = timeline("2024-06-03T10:00:00Z", [{ minutes: 60, kwh: 10 }]);

  it("prices the booked time and the booking fee besides the session", () => {
    // booked 09:30, session 10:00-11:00: booking 2.00 flat + 0.5 h x 1.20 = 2.60; session 10 kWh x 0.30 = 3.00
    const p = priceSession({ tariffs: [tariff], time_zone: BERLIN, session, reservation: { start: "2024-06-03T09:30:00Z", end: "2024-06-03T10:00:00Z", expired: false, booking: true } });
    expect(p.total_reservation_cost?.before_taxes).toBe(2.6);
    expect(excl(p)).toBe(5.6);
    expect(p.charging_periods[0].dimensions).toEqual([{ type: "RESERVATION_TIME", volume: 0.5 }]);
  });

  it("prices a no-show by its BOOKING_EXPIRES element first", () => {
    // booked 09:00 to 10:00, nobody came: the 5.00 BOOKING_EXPIRES flat (tried first) + 1 h x 1.20
    const p = priceSession({ tariffs: [tariff], time_zone: BERLIN, reservation: { start: "2024-06-03T09:00:00Z", end: "2024-06-03T10:00:00Z", expired: true, booking: true } });
    expect(excl(p)).toBe(6.2);
  });

  it("a reservation (not a booking) is not priced by booking elements, and a session without a booking neither", () => {
    const reserved = priceSession({ tariffs: [tariff], time_zone: BERLIN, session, reservation: { start: "2024-06-03T09:30:00Z", end: "2024-06-03T10:00:00Z", expired: false } });
    expect(reserved.total_reservation_cost).toBeUndefined();
    expect(excl(priceSession({ tariffs: [tariff], time_zone: BERLIN, session }))).toBe(3);
  });
});

describe("bookingTimeline: a Booking as the tariff engine prices it", () => {
  const booking = (noshow_timeout?: number): Booking => ({
    id: "B1",
    country_code: "NL",
    party_id: "GWY",
    request_id: "R1",
    location_id: "LOC1",
    period: { start_date_time: "2024-06-03T10:00:00Z", end_date_time: "2024-06-03T11:00:00Z" },
    reservation_status: "RESERVED",
    authorization_reference: "A1",
    booking_terms: { supported_access_methods: ["TOKEN"], change_until_minutes: 0, cancel_until_minutes: 0, noshow_timeout },
    booking_requests: [
      {
        request_status: "ACCEPTED",
        request_received: "2024-06-03T09:30:00Z",
        booking_request: {
          country_code: "DE",
          party_id: "EMS",
          request_id: "R1",
          location_id: "LOC1",
          booking_location_id: "BL1",
          period: { start_date_time: "2024-06-03T10:00:00Z", end_date_time: "2024-06-03T11:00:00Z" },
          authorization_reference: "A1",
        },
      },
    ],
    last_updated: "2024-06-03T09:30:00Z",
  });

  it("runs from the request to the session's start, or to the no-show", () => {
    expect(bookingTimeline(booking(), "2024-06-03T10:05:00Z")).toEqual({ start: "2024-06-03T09:30:00Z", end: "2024-06-03T10:05:00Z", expired: false, booking: true });
    expect(bookingTimeline(booking(15))).toEqual({ start: "2024-06-03T09:30:00Z", end: "2024-06-03T10:15:00Z", expired: true, booking: true });
    expect(bookingTimeline(booking()).end).toBe("2024-06-03T11:00:00Z");
  });
});
