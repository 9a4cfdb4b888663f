import { removeTempDirs } from "../support/gateway-config";
import { ALPHA } from "../support/steve-seed";
import { book, bookingRequest, eventually, EVSE, held, iso, reservationsOf, startWorld, type Json, type World } from "./bookings-steve.fixtures";

/**
 * Bookings on SteVe, the edges of docs/steve.md "Bookings" (bookings-steve.test.ts has the main path): the EVSE
 * chosen when the request names none, requests refused before anything reaches SteVe, a station refusing the
 * reservation and a reservation cancelled in SteVe itself. Every test has a world of its own (beforeEach).
 */

const MINUTE = 60_000;
let world: World | undefined;
const w = () => world!;
const inMinutes = (minutes: number) => Math.ceil((Date.now() + minutes * MINUTE) / 1000) * 1000;

beforeEach(async () => {
  world = await startWorld();
}, 60_000);
afterEach(async () => {
  await world?.close();
  world = undefined;
});
afterAll(() => removeTempDirs());

const requested = async (body: Json): Promise<Json> => {
  const answer = await w().emsp.admin("POST", "/bookings/cpo", body);
  expect(answer.status).toBe(200);
  return (answer.body as Json).data ?? answer.body;
};

test("without an EVSE named, the first EVSE free for the whole period is booked and named in the answer", async () => {
  const start = inMinutes(20);
  // the first names EVSE 2 (the fixture's default); the next ones name none
  const first = await book(w(), w().emsp, "EDGE1", start, start + 30 * MINUTE);
  expect(first.booking_option.evse_uid).toBe(EVSE);
  const any = { ...bookingRequest(w().emsp.token("EDGE1"), start, start + 30 * MINUTE), booking_option: { evse_uid: "#NA" } };
  const second = await requested(any);
  expect(second).toMatchObject({ reservation_status: "RESERVED", booking_option: { evse_uid: `${ALPHA.id}-1` } });
  const third = await requested(any);
  expect(third).toMatchObject({ reservation_status: "REJECTED" });
}, 60_000);

test("refused before SteVe is asked: a period over (by the plugin), beyond the calendars' horizon, without tokens", async () => {
  const token = w().emsp.token("EDGE2");
  const over = await requested(bookingRequest(token, inMinutes(-30), inMinutes(-10)));
  const beyond = await requested(bookingRequest(token, inMinutes(2 * 24 * 60), inMinutes(2 * 24 * 60 + 30)));
  const tokenless = await requested({ ...bookingRequest(token, inMinutes(20), inMinutes(40)), tokens: [] });
  // a period over is the plugin's to refuse (2001); the adapter rejects the others
  expect(over).toMatchObject({ status_code: 2001 });
  expect([beyond, tokenless].map((b) => b.reservation_status)).toEqual(["REJECTED", "REJECTED"]);
  expect(w().fake.calls.filter((c) => c.operation === "ReserveNow")).toEqual([]);
}, 60_000);

test("the station refuses the reservation (Occupied): the booking is CANCELED by the CPO, reason BLOCKED, and its slot free again", async () => {
  w().fake.next("ReserveNow", { kind: "response", response: "Occupied" });
  const start = inMinutes(20);
  const booking = await book(w(), w().emsp, "EDGE3", start, start + 30 * MINUTE);
  const canceled = await eventually(async () => {
    const now = await held(w().emsp, booking.id);
    return now?.reservation_status === "CANCELED" && now;
  });
  expect(canceled.canceled).toEqual({ cancellation_reason: "BLOCKED", who_canceled: "CPO" });
  expect(await reservationsOf(w(), "EDGE3")).toEqual([]);
  const again = await book(w(), w().emsp, "EDGE3", start, start + 30 * MINUTE);
  expect(again.reservation_status).toBe("RESERVED");
}, 60_000);

test("a reservation cancelled in SteVe itself (an operator) cancels the booking as the CPO", async () => {
  const start = inMinutes(20);
  const booking = await book(w(), w().emsp, "EDGE4", start, start + 30 * MINUTE);
  const [reservation] = await eventually(async () => {
    const rows = await reservationsOf(w(), "EDGE4");
    return rows[0]?.status === "ACCEPTED" && rows;
  });
  await w().writer.query("UPDATE reservation SET status = 'CANCELLED' WHERE reservation_pk = ?", [reservation.reservationPk]);
  const canceled = await eventually(async () => {
    const now = await held(w().emsp, booking.id);
    return now?.reservation_status === "CANCELED" && now;
  });
  expect(canceled.canceled).toEqual({ cancellation_reason: "UNKNOWN", who_canceled: "CPO" });
  expect(iso(Date.parse(canceled.period.start_date_time))).toBe(iso(start));
}, 60_000);
