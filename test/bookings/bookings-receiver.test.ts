import "reflect-metadata";
import { startHarness, type Harness } from "../support/module-harness";
import { BookingsPlugin } from "../../plugins/bookings/module";
import { localBookings } from "../../adapters/local/bookings";
import { example, mendedBooking, mendedLocation } from "./booking-examples";

type Json = Record<string, any>;

/**
 * The eMSP's Receiver interface of bookings (OCPI 2.3.0 Bookings extension 1.1) over supertest, with the
 * published examples (vendored verbatim; their defects: test/fixtures/ocpi-examples/NOTICE.md): a CPO partner
 * with the parties NL/INF and NL/IHO pushes BookingLocations, Calendars and Bookings.
 */
describe("bookings Receiver (eMSP)", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({
      plugins: [BookingsPlugin],
      localModules: [localBookings],
      modules: ["bookings"],
      party: { country_code: "DE", party_id: "EMS", role: "EMSP" },
      partnerRoles: [
        { country_code: "NL", party_id: "INF", role: "CPO", business_details: { name: "INF" } },
        { country_code: "NL", party_id: "IHO", role: "CPO", business_details: { name: "IHO" } },
      ],
    });
  });
  afterEach(() => h?.close());

  const url = (rest: string) => h.path("2.3.0", "RECEIVER", "bookings", rest);
  const send = (method: "put" | "patch" | "get", rest: string, body?: unknown) => {
    const call = h.http[method](url(rest)).set("Authorization", h.auth);
    return body === undefined ? call : call.send(body as object);
  };

  it("refuses the published BookingLocation and Booking examples as they are, naming the defective field (2001)", async () => {
    const location = await send("put", "/NL/IHO/booking_locations/12345", example("booking_location_example.json"));
    expect([location.body.status_code, location.body.status_message]).toEqual([2001, expect.stringContaining("/calendars/0/end_before")]);
    expect(location.body.status_message).toContain("/booking_option/evse_position");
    const booking = await send("put", "/NL/INF/12345", example("booking_example.json"));
    expect([booking.status, booking.body.status_code, booking.body.status_message]).toEqual([200, 2001, expect.stringContaining("/party_id")]);
  });

  it("takes a BookingLocation, a Calendar of it and its PATCHes; a Calendar change moves the location's last_updated", async () => {
    expect((await send("put", "/NL/INF/booking_locations/12345", mendedLocation())).status).toBe(201);
    expect((await send("get", "/NL/INF/booking_locations/12345")).body.data.calendars).toHaveLength(2);
    const terms = await send("patch", "/NL/INF/booking_locations/12345", example("booking_location_patch_example_terms.json"));
    expect(terms.body.status_code).toBe(1000);
    const patched = (await send("get", "/NL/INF/booking_locations/12345")).body.data;
    // merged field by field: cancel_until_minutes (not in the PATCH) kept
    expect(patched.booking_terms).toMatchObject({ cancel_until_minutes: 600, booking_terms: "https://example.com/booking-a-charger" });
    // the calendar PATCH example has keys with trailing spaces and seconds 99: refused, naming the field
    const calendarExample = await send("patch", "/NL/INF/booking_locations/12345/CA112", example("booking_location_patch_example_calendar.json"));
    expect(calendarExample.body.status_code).toBe(2001);
    const slot = { start_date_time: "2025-03-24T10:00:00Z", end_date_time: "2025-03-24T11:00:00Z" };
    const calendar = await send("patch", "/NL/INF/booking_locations/12345/ca112", { available_timeslots: [slot], last_updated: "2025-01-02T00:00:00Z" });
    expect(calendar.body.status_code).toBe(1000);
    expect((await send("get", "/NL/INF/booking_locations/12345/CA112")).body.data.available_timeslots).toEqual([slot]);
    expect((await send("get", "/NL/INF/booking_locations/12345")).body.data.last_updated).toBe("2025-01-02T00:00:00Z");
    expect((await send("get", "/NL/INF/booking_locations/12345/NOPE")).status).toBe(404);
    // a Calendar PUT adds (or replaces) one, and moves the location's last_updated too
    const added = { ...mendedLocation().calendars[0], id: "CA200", last_updated: "2025-01-03T00:00:00Z" };
    expect((await send("put", "/NL/INF/booking_locations/12345/CA200", added)).body.status_code).toBe(1000);
    const withAdded = (await send("get", "/NL/INF/booking_locations/12345")).body.data;
    expect([withAdded.calendars.map((c: Json) => c.id), withAdded.last_updated]).toEqual([["CA112", "CA113", "CA200"], "2025-01-03T00:00:00Z"]);
  });

  it("takes a Booking and the status PATCH example; the path's owner must match the body", async () => {
    const put = await send("put", "/NL/INF/12345", mendedBooking());
    expect([put.status, put.body]).toEqual([201, expect.objectContaining({ status_code: 1000 })]);
    expect((await send("patch", "/NL/INF/12345", { ...example("booking_patch_example_status_update.json"), reservation_status: "FULFILLED" })).body.status_code).toBe(1000);
    expect((await send("get", "/NL/INF/12345")).body.data.reservation_status).toBe("FULFILLED");
    // the 1.0 leftover: a top-level evse_uid is no 1.1 field, kept as an unknown property (booking_option untouched)
    expect((await send("patch", "/NL/INF/12345", example("booking_patch_example_evse_uid.json"))).body.status_code).toBe(1000);
    expect((await send("get", "/NL/INF/12345")).body.data).toMatchObject({ evse_uid: "EVS1234", booking_option: { evse_uid: "3256" } });
    const elsewhere = await send("put", "/NL/INF/12345", { ...mendedBooking(), party_id: "IHO" });
    expect([elsewhere.body.status_code, elsewhere.body.status_message]).toEqual([2001, expect.stringContaining("/party_id")]);
    const unknown = await send("patch", "/NL/INF/NOPE", example("booking_patch_example_status_update.json"));
    expect(unknown.status).toBe(404);
    const badStatus = await send("patch", "/NL/INF/12345", { reservation_status: "MAYBE", last_updated: "2025-03-23T13:00:00Z" });
    expect([badStatus.body.status_code, badStatus.body.status_message]).toEqual([2001, expect.stringContaining("/reservation_status")]);
  });

  it("is not served in 2.2.1", async () => {
    const old = await h.http.get(h.path("2.2.1", "RECEIVER", "bookings", "/NL/INF/12345")).set("Authorization", h.auth);
    expect(old.status).toBe(404);
  });
});
