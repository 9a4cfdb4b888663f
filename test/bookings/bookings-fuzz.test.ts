import "reflect-metadata";
import { startHarness, type Harness } from "../support/module-harness";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";
import { describeViolations, runFuzz } from "../reliability/fuzz-run";
import type { FuzzTarget } from "../reliability/fuzz-targets";
import type { FuzzGateway } from "../reliability/fuzz-gateway";
import { MUTATION_KINDS, type Json } from "../reliability/mutations";
import { BookingsPlugin } from "../../plugins/bookings/module";
import { localBookings } from "../../adapters/local/bookings";
import { example, mendedBooking, mendedLocation } from "./booking-examples";
import { bookingLocations, requestBody } from "./bookings-world";

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_207);

/**
 * The mutation fuzzer of test/reliability (the seeds damaged one way at a time: deleted, null or mistyped fields,
 * strings over their length, control characters, wrong enums, duplicate keys, truncated JSON, bodies over the
 * limit, wrong ids and owners, malformed dates…) on every route of bookings that takes a body: the eMSP's
 * Receiver (BookingLocation, Calendar, Booking; PUT and PATCH) and the CPO's POST of a BookingRequest. Every
 * answer is an OCPI envelope below HTTP 500, and a refused body leaves the store as it was.
 */
describe("bookings: mutated bodies", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({
      plugins: [BookingsPlugin],
      localModules: [localBookings],
      modules: ["bookings"],
      party: { country_code: "NL", party_id: "CPO", role: "CPO" },
      partnerRoles: [
        { country_code: "NL", party_id: "INF", role: "CPO", business_details: { name: "INF" } },
        { country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "EMS" } },
      ],
      seed: { bookings: bookingLocations(Math.floor(Date.now() / 1000) * 1000) },
    });
  });
  afterEach(() => h?.close());

  const call: FuzzGateway["call"] = async (method, path, text, auth) => {
    let request = h.http[method.toLowerCase() as "put" | "patch" | "post"](path).set("Authorization", auth);
    if (text !== undefined) request = request.set("Content-Type", "application/json").send(text);
    const res = await request;
    return { status: res.status, body: res.body, text: res.text.slice(0, 500) };
  };
  const stored = (...collections: string[]) => async () => Promise.all(collections.map(async (c) => (await h.gateway.store.range(c, { offset: 0, limit: 100_000 })).items));
  const receiver = (rest: string) => h.path("2.3.0", "RECEIVER", "bookings", rest);

  const targets = (): FuzzTarget[] => {
    const location = mendedLocation();
    const putLocation = () => call("PUT", receiver("/NL/INF/booking_locations/12345"), JSON.stringify(location), h.auth);
    const putBooking = () => call("PUT", receiver("/NL/INF/12345"), JSON.stringify(mendedBooking()), h.auth);
    const received = stored("local:bookings.locations.received:NLINF", "local:bookings.received:NLINF");
    const target = (route: string, method: string, seed: Json, rest: string, restore: () => Promise<unknown>, objectKey: string): FuzzTarget => ({
      version: "2.3.0",
      route,
      method,
      seed,
      identity: { idKey: "id" },
      objectKey,
      prepare: async (dirty) => {
        if (dirty) await restore();
        return { path: receiver(rest), auth: h.auth };
      },
      state: received,
    });
    const calendar = location.calendars[0];
    const bookingRequest = { country_code: "DE", party_id: "EMS", request_id: "R-FUZZ", authorization_reference: "A-FUZZ", ...requestBody(Date.now(), 120, 180), tokens: [EMS_CDR_TOKEN] };
    return [
      target("PUT BookingLocation", "PUT", location, "/NL/INF/booking_locations/12345", putLocation, "location"),
      target("PATCH BookingLocation", "PATCH", example("booking_location_patch_example_terms.json"), "/NL/INF/booking_locations/12345", putLocation, "location"),
      target("PUT Calendar", "PUT", calendar, "/NL/INF/booking_locations/12345/CA112", putLocation, "location"),
      target("PATCH Calendar", "PATCH", { available_timeslots: calendar.available_timeslots, last_updated: "2025-01-02T00:00:00Z" }, "/NL/INF/booking_locations/12345/CA112", putLocation, "location"),
      target("PUT Booking", "PUT", mendedBooking(), "/NL/INF/12345", putBooking, "booking"),
      target("PATCH Booking", "PATCH", example("booking_patch_example_status_update.json"), "/NL/INF/12345", putBooking, "booking"),
      {
        version: "2.3.0",
        route: "POST BookingRequest",
        method: "POST",
        seed: bookingRequest,
        identity: { idKey: "request_id" },
        objectKey: "request",
        prepare: async () => ({ path: h.path("2.3.0", "SENDER", "bookings"), auth: h.auth }),
        state: stored("local:bookings:NLCPO", "local:bookings:holds:NLCPO"),
      },
    ];
  };

  it("answers every mutated body below 500 with an envelope and never writes part of a refused one", async () => {
    const routes = targets();
    const cases = Math.max(Number(process.env.FUZZ_CASES ?? 0), routes.length * MUTATION_KINDS.length);
    const totals = await runFuzz({ call }, routes, SEED, Array.from({ length: cases }, (_, i) => i));
    expect(describeViolations(totals.violations, SEED)).toBe("");
    // every route took some mutated bodies and refused others: the seeds are valid and the mutations bite
    expect(routes.filter((t) => !totals.acceptedByRoute[`2.3.0 ${t.route}`]).map((t) => t.route)).toEqual([]);
    expect(totals.rejected).toBeGreaterThan(totals.accepted);
  }, 300_000);
});
