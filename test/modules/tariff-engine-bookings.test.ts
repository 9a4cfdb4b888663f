import { priceSession } from "../../plugins/tariffs/engine";
import type { Tariff } from "../../plugins/tariffs/model";
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
