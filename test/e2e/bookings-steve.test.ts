import { ocpiRequest } from "../support/gateway-process";
import { removeTempDirs } from "../support/gateway-config";
import { ALPHA, TAGS } from "../support/steve-seed";
import { book, BOOKED_TARIFF, bookingRequest, command, eventually, EVSE, held, iso, reservationsOf, startWorld, type Json, type World } from "./bookings-steve.fixtures";

/**
 * Issue #28 end to end on SteVe (bookings-steve.fixtures.ts): an eMSP gateway books a charger at a CPO gateway
 * whose backend is SteVe (MariaDB and the fake SteVe REST API). Availability is read, a booking is requested,
 * reserved in SteVe (ReserveNow, reserve_ahead_minutes before its start), fulfilled by a session started with
 * its token (the station uses the reservation), and its CDR carries the booking fee and booking_id; a
 * cancellation cancels the SteVe reservation; a no-show frees it; a slot SteVe has reserved is refused; the other
 * eMSP neither sees nor cancels the booking. Every test has a world of its own (beforeEach).
 */

const MINUTE = 60_000;
const UID = "BOOKTOKEN1";
let world: World | undefined;
const w = () => world!;

afterEach(async () => {
  await world?.close();
  world = undefined;
});
afterAll(() => removeTempDirs());

/** The eMSP's view of ALPHA's BookingLocation through its admin API (the CPO's Sender, read over OCPI). */
const alphaCalendars = async (): Promise<Json[]> => {
  const listed = await w().emsp.admin("GET", "/bookings/cpo/booking_locations");
  expect(listed.status).toBe(200);
  const [location] = (listed.body as Json).data as Json[];
  expect(location).toMatchObject({ country_code: "DE", party_id: "ABC", id: ALPHA.id, location_id: ALPHA.id, tariff_ids: ["T-BOOKED"] });
  return location.calendars;
};
const calendarOf = (calendars: Json[], uid: string) => calendars.find((c) => c.id === uid)!;
const ms = (text: string) => Date.parse(text);

/** A booking of EVSE reserved in SteVe: the eMSP holds it RESERVED and SteVe an ACCEPTED reservation for the token's idTag until the period's end. */
async function reservedBooking(startMs: number, endMs: number): Promise<Json> {
  const booking = await book(w(), w().emsp, UID, startMs, endMs);
  expect(booking).toMatchObject({ country_code: "DE", party_id: "ABC", location_id: ALPHA.id, reservation_status: "RESERVED", booking_option: { evse_uid: EVSE } });
  expect(booking.tariff_ids).toEqual(["T-BOOKED"]);
  const [reservation] = await eventually(async () => {
    const rows = await reservationsOf(w(), UID);
    return rows.length > 0 && rows[0].status === "ACCEPTED" && rows;
  });
  expect(reservation).toMatchObject({ chargeBoxId: ALPHA.id, evseId: 2, transactionPk: null, expiry: new Date(endMs) });
  expect(w().fake.calls.filter((c) => c.operation === "ReserveNow").map((c) => c.body)).toEqual([
    { chargeBoxIdList: [ALPHA.id], connectorId: 2, expiry: iso(endMs), idTag: UID },
  ]);
  return booking;
}

describe("with a noshow_timeout of 5 minutes", () => {
  beforeEach(async () => {
    world = await startWorld();
  }, 60_000);

  test("availability: one calendar per EVSE of ALPHA, free for the horizon; a booking takes its period out of its EVSE's timeslots", async () => {
    const before = Date.now();
    const calendars = await alphaCalendars();
    expect(calendars.map((c) => c.id)).toEqual([`${ALPHA.id}-1`, EVSE]);
    const evse = calendarOf(calendars, EVSE);
    expect(evse.available_timeslots).toHaveLength(1);
    // from now (SteVe's clock, whole seconds)
    expect(ms(evse.available_timeslots[0].start_date_time)).toBeGreaterThanOrEqual(before - 1_000);
    expect(ms(evse.available_timeslots[0].start_date_time)).toBeLessThanOrEqual(Date.now());
    expect(ms(evse.available_timeslots[0].end_date_time) - ms(evse.begin_from)).toBe(24 * 60 * MINUTE);

    const start = Math.ceil((Date.now() + 30 * MINUTE) / 1000) * 1000;
    await book(w(), w().emsp, UID, start, start + 30 * MINUTE);
    expect(calendarOf(await alphaCalendars(), EVSE).available_timeslots).toEqual([
      { start_date_time: expect.any(String), end_date_time: iso(start) },
      { start_date_time: iso(start + 30 * MINUTE), end_date_time: expect.any(String) },
    ]);
    // the other EVSE is not touched
    expect(calendarOf(await alphaCalendars(), `${ALPHA.id}-1`).available_timeslots).toHaveLength(1);
  }, 60_000);

  test("a booking reserved in SteVe is fulfilled by a session started with its token; the CDR carries booking_id and the booking fee", async () => {
    const start = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
    const booking = await reservedBooking(start, start + 30 * MINUTE);
    // the driver arrives after the period's start and starts charging from the eMSP's app
    await eventually(() => Date.now() > start + 500);
    const started = await command(w().emsp, "START_SESSION", { token: w().emsp.token(UID), location_id: ALPHA.id, evse_uid: EVSE, connector_id: "1" });
    expect(started.result).toMatchObject({ result: "ACCEPTED" });
    const [used] = await eventually(async () => {
      const rows = await reservationsOf(w(), UID);
      return rows[0]?.status === "USED" && rows;
    });
    expect(used.transactionPk).toEqual(expect.any(Number));
    const fulfilled = await eventually(async () => {
      const now = await held(w().emsp, booking.id);
      return now?.reservation_status === "FULFILLED" && now;
    });
    expect(fulfilled.id).toBe(booking.id);

    const sessionId = String(used.transactionPk);
    await w().fake.meter(used.transactionPk, 1500);
    const stopped = await command(w().emsp, "STOP_SESSION", { session_id: sessionId });
    expect(stopped.result).toMatchObject({ result: "ACCEPTED" });
    const cdr = await eventually(() => w().emsp.gateway.store.get<Json>("local:cdrs:DEABC", sessionId));
    expect(cdr).toMatchObject({ id: sessionId, session_id: sessionId, booking_id: booking.id, cdr_token: { uid: UID, party_id: "EMS" }, total_energy: 1.5 });
    expect(cdr.tariffs.map((t: Json) => t.id)).toEqual([BOOKED_TARIFF.id]);
    // 2.00 booking fee + 1.5 kWh × 0.40 + 0.50, all plus 20 % VAT
    expect(cdr.total_cost).toEqual({ before_taxes: 3.1, taxes: [{ name: "VAT", amount: 0.62 }] });
    expect(cdr.total_reservation_cost).toEqual({ before_taxes: 2, taxes: [{ name: "VAT", amount: 0.4 }] });
    expect(cdr.start_date_time).toBe(iso(start));
  }, 60_000);

  test("the eMSP cancels: CANCELED, and SteVe's reservation is cancelled (CancelReservation)", async () => {
    const start = Math.ceil((Date.now() + 10 * MINUTE) / 1000) * 1000;
    const booking = await reservedBooking(start, start + 30 * MINUTE);
    const canceled = await w().emsp.admin("POST", `/bookings/cpo/${booking.id}/cancel`, { cancellation_reason: "TRAFFIC" });
    expect(canceled.status).toBe(200);
    expect((canceled.body as Json).data).toMatchObject({ id: booking.id, reservation_status: "CANCELED", canceled: { cancellation_reason: "TRAFFIC", who_canceled: "EMSP" } });
    const [reservation] = await reservationsOf(w(), UID);
    expect(w().fake.calls.at(-1)).toEqual({ operation: "CancelReservation", body: { chargeBoxIdList: [ALPHA.id], reservationId: reservation.reservationPk } });
    await w().fake.idle();
    expect((await reservationsOf(w(), UID)).map((r) => r.status)).toEqual(["CANCELLED"]);
    // the slot is free again
    expect(calendarOf(await alphaCalendars(), EVSE).available_timeslots).toHaveLength(1);
  }, 60_000);

  test("a slot SteVe has reserved (an operator's reservation) is not offered, and a request for it is REJECTED", async () => {
    const expiry = Math.ceil((Date.now() + 60 * MINUTE) / 1000) * 1000;
    const reserved = await fetch(`${w().fake.baseUrl}/api/v1/operations/ReserveNow`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from("gateway:bookings-steve-api-password").toString("base64")}` },
      body: JSON.stringify({ chargeBoxIdList: [ALPHA.id], connectorId: 2, expiry: new Date(expiry).toISOString(), idTag: TAGS.carol }),
    });
    expect(reserved.status).toBe(200);
    await w().fake.idle();
    const [free] = calendarOf(await alphaCalendars(), EVSE).available_timeslots;
    expect(free.start_date_time).toBe(iso(expiry));

    const start = Math.ceil((Date.now() + 10 * MINUTE) / 1000) * 1000;
    const booking = await book(w(), w().emsp, UID, start, start + 20 * MINUTE);
    expect(booking.reservation_status).toBe("REJECTED");
    expect(booking.booking_requests.map((r: Json) => r.request_status)).toEqual(["DECLINED"]);
    expect(w().fake.calls.filter((c) => c.operation === "ReserveNow")).toHaveLength(1);
  }, 60_000);

  test("another eMSP neither sees the booking nor can cancel it", async () => {
    const start = Math.ceil((Date.now() + 10 * MINUTE) / 1000) * 1000;
    const booking = await reservedBooking(start, start + 30 * MINUTE);
    const seenBy = async (emsp: World["emsp"]) => ((await emsp.admin("GET", "/bookings/cpo")).body as Json).data.map((b: Json) => b.id);
    expect(await seenBy(w().emsp)).toEqual([booking.id]);
    expect(await seenBy(w().other)).toEqual([]);
    // its gateway holds nothing to cancel
    expect((await w().other.admin("POST", `/bookings/cpo/${booking.id}/cancel`, {})).status).toBe(404);
    // a cancellation under the booking's request_id, sent as the other eMSP, finds no booking of its own
    const forged = { ...bookingRequest(w().other.token("X1"), start, start + 30 * MINUTE), country_code: "DE", party_id: "OTH", request_id: booking.request_id, authorization_reference: "FORGED", canceled: { cancellation_reason: "UNKNOWN", who_canceled: "EMSP" } };
    const refused = await ocpiRequest("POST", `${w().cpoUrl}/ocpi/2.3.0/sender/bookings`, { token: w().other.tokenToCpo, body: forged });
    expect(refused.body).toMatchObject({ status_code: 2001 });
    expect((await held(w().emsp, booking.id))?.reservation_status).toBe("RESERVED");
    expect((await reservationsOf(w(), UID)).map((r) => r.status)).toEqual(["ACCEPTED"]);
  }, 60_000);
});

describe("with a noshow_timeout of 0", () => {
  beforeEach(async () => {
    world = await startWorld({ noshowTimeout: 0 });
  }, 60_000);

  test("nobody comes: NO_SHOW is pushed to the eMSP and SteVe's reservation is cancelled", async () => {
    const start = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const booking = await reservedBooking(start, start + 30 * MINUTE);
    const noShow = await eventually(async () => {
      const now = await held(w().emsp, booking.id);
      return now?.reservation_status === "NO_SHOW" && now;
    });
    expect(Date.now()).toBeGreaterThanOrEqual(start);
    expect(noShow.id).toBe(booking.id);
    await eventually(async () => (await reservationsOf(w(), UID))[0].status === "CANCELLED");
    expect(w().fake.calls.filter((c) => c.operation === "CancelReservation")).toHaveLength(1);
  }, 60_000);
});
