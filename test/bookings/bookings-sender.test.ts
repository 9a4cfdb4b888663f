import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { startHarness, type Harness } from "../support/module-harness";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";
import { BookingsPlugin } from "../../plugins/bookings/module";
import { localBookings } from "../../adapters/local/bookings";
import type { LocalModule } from "../../adapters/local/local-module";
import { BackendUnavailableError, type BookingsSenderPort } from "../../adapters/kit";
import { bookingLocations, requestBody, type Json } from "./bookings-world";

const EM2_TOKEN = { ...EMS_CDR_TOKEN, party_id: "EM2", uid: "EM2-TOKEN" };

/** The local bookings module whose backend is down when asked to hold a slot. */
const downWhenReserving: LocalModule = {
  ...localBookings,
  create(store, context) {
    const parts = localBookings.create(store, context);
    const sender = parts.ports["bookings.SENDER"] as BookingsSenderPort;
    const reserve: BookingsSenderPort["reserve"] = async () => {
      throw new BackendUnavailableError("booking backend");
    };
    return { ...parts, ports: { ...parts.ports, "bookings.SENDER": { ...sender, reserve } } };
  },
};

/**
 * The CPO's Sender interface of bookings over supertest: a partner with two eMSP parties, a backend that fails
 * to hold a slot, and BookingLocations from the config that are not valid.
 */
describe("bookings Sender (CPO)", () => {
  const origin = Math.floor(Date.now() / 1000) * 1000;
  let h: Harness;
  const start = (module: LocalModule) =>
    startHarness({
      plugins: [BookingsPlugin],
      localModules: [module],
      modules: ["bookings"],
      party: { country_code: "NL", party_id: "CPO", role: "CPO" },
      partnerRoles: ["EMS", "EM2"].map((party_id) => ({ country_code: "DE", party_id, role: "EMSP" as const, business_details: { name: party_id } })),
      seed: { bookings: bookingLocations(origin) },
    });
  afterEach(() => h?.close());
  afterAll(() => removeTempDirs());

  const post = (body: Json) => h.http.post(h.path("2.3.0", "SENDER", "bookings")).set("Authorization", h.auth).send(body);
  const request = (party_id: string, token: Json, from: number, to: number) =>
    post({ country_code: "DE", party_id, request_id: `R-${party_id}`, authorization_reference: `A-${party_id}`, ...requestBody(origin, from, to), tokens: [token] });

  it("lists the bookings of every party of a partner with several, and counts them", async () => {
    h = await start(localBookings);
    expect((await request("EMS", EMS_CDR_TOKEN, 60, 90)).body.data.reservation_status).toBe("RESERVED");
    expect((await request("EM2", EM2_TOKEN, 120, 150)).body.data.reservation_status).toBe("RESERVED");
    // walked one by one: both pages count both, and together hold each party's booking once (ties of last_updated in any fixed order)
    const pages = await Promise.all([0, 1].map((offset) => h.http.get(`${h.path("2.3.0", "SENDER", "bookings")}?limit=1&offset=${offset}`).set("Authorization", h.auth)));
    expect(pages.map((p) => p.headers["x-total-count"])).toEqual(["2", "2"]);
    expect(pages.flatMap((p) => p.body.data.map((b: Json) => b.booking_requests[0].booking_request.party_id)).sort()).toEqual(["EM2", "EMS"]);
  });

  it("answers FAILED, not PENDING for ever, when the backend cannot hold the slot", async () => {
    h = await start(downWhenReserving);
    const answer = await request("EMS", EMS_CDR_TOKEN, 60, 90);
    expect([answer.body.status_code, answer.body.data.reservation_status, answer.body.data.booking_requests[0].request_status]).toEqual([1000, "FAILED", "FAILED"]);
    const list = await h.http.get(h.path("2.3.0", "SENDER", "bookings")).set("Authorization", h.auth);
    expect(list.body.data.map((b: Json) => b.reservation_status)).toEqual(["FAILED"]);
  });

  it("books a BookingLocation that states no terms under TOKEN access with no change or cancel window", async () => {
    const [main, soon] = bookingLocations(origin);
    const { booking_terms: _none, ...withoutTerms } = soon;
    h = await startHarness({
      plugins: [BookingsPlugin],
      localModules: [localBookings],
      modules: ["bookings"],
      party: { country_code: "NL", party_id: "CPO", role: "CPO" },
      partnerRoles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "EMS" } }],
      seed: { bookings: [main, withoutTerms] },
    });
    const answer = await post({ country_code: "DE", party_id: "EMS", request_id: "R-1", authorization_reference: "A-1", ...requestBody(origin, 60, 90), location_id: "LOC2", booking_location_id: "BL-SOON", tokens: [EMS_CDR_TOKEN] });
    expect(answer.body.data.booking_terms).toEqual({ supported_access_methods: ["TOKEN"], change_until_minutes: 0, cancel_until_minutes: 0 });
  });

  it("refuses to start with a BookingLocation in adapters.local.bookings that is not valid or not ours", async () => {
    const start = (bookings: Json[]) =>
      Gateway.create(
        testGatewayConfig({ port: 9, party: { country_code: "NL", party_id: "CPO", role: "CPO" }, modules: { bookings: { adapter: "local" } }, adapters: { local: { bookings } } }),
        { logger: pino({ level: "silent" }) },
      );
    const [valid] = bookingLocations(origin);
    await expect(start([{ ...valid, calendars: [{ ...valid.calendars[0], end_before: "tomorrow" }] }])).rejects.toThrow(
      /adapters\.local\.bookings\[0\]: not a valid 2\.3\.0 BookingLocation: \/calendars\/0\/end_before/,
    );
    await expect(start([{ ...valid, party_id: "OTH" }])).rejects.toThrow("adapters.local.bookings[0]: NL/OTH is not one of our parties");
  });
});
