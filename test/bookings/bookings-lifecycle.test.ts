import "reflect-metadata";
import { removeTempDirs } from "../support/gateway-config";
import { EMS_CDR_TOKEN, cdrOf, sessionOf } from "../support/ocpi-objects";
import { ocpiRequest } from "../support/gateway-process";
import { admin, at, atCpo, heldBy, requestBody, startWorld, until, type BookingsWorld, type Json } from "./bookings-world";

const CPO_PARTY = { country_code: "NL", party_id: "CPO" };
const LOC1 = { locationId: "LOC1", evseUid: "LOC1-E1", evseId: "NL*CPO*E1", connectorId: "1", address: "LOC1 street 1" };

/**
 * The lifecycle of a booking at the CPO gateway (plugins/bookings/lifecycle.ts): NO_SHOW by the scheduled
 * check, FULFILLED by a session the backend reports with one of the booking's tokens, final states that stay
 * final, the CPO's own cancellation, each change pushed to the eMSP; and a CDR carrying its booking_id.
 */
describe("bookings: the lifecycle", () => {
  let world: BookingsWorld;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world?.close());
  afterAll(() => removeTempDirs());

  const request = async (body: Json): Promise<Json> => {
    const answer = await admin(world.emsp.url, "POST", "/bookings/cpo", body);
    expect(answer.body.status_code).toBe(1000);
    return answer.body.data;
  };
  const statusAtEmsp = (id: string, status: string) =>
    until(`the eMSP holds the booking ${status}`, async () => (await heldBy(world.emsp, id))?.reservation_status === status);
  const startSession = (id: string, token: Json = EMS_CDR_TOKEN) =>
    admin(world.cpoUrl, "POST", "/events", {
      module: "sessions",
      owner: CPO_PARTY,
      path: [id],
      kind: "upsert",
      object: sessionOf({ owner: CPO_PARTY, id, status: "ACTIVE", start: at(world.origin, 0), kwh: 0, token, place: LOC1 }),
    });

  it("answers PENDING when the backend decides later, and pushes its decision through the lifecycle", async () => {
    await world.close();
    world = await startWorld({ decisionMs: 300 });
    const booking = await request(requestBody(world.origin, 120, 180));
    expect([booking.reservation_status, booking.booking_requests[0].request_status]).toEqual(["PENDING", "PENDING"]);
    await statusAtEmsp(booking.id, "RESERVED");
    expect((await heldBy(world.emsp, booking.id))!.booking_requests[0].request_status).toBe("ACCEPTED");
    const taken = await request(requestBody(world.origin, 150, 200));
    expect(taken.reservation_status).toBe("PENDING");
    await statusAtEmsp(taken.id, "REJECTED");
  });

  it("marks a RESERVED booking NO_SHOW when nothing started by its noshow_timeout, pushes it, and frees the slot", async () => {
    // BL-SOON's noshow_timeout is 0: due as soon as the period starts, two seconds from now
    const soon = { location_id: "LOC2", booking_location_id: "BL-SOON", tokens: [EMS_CDR_TOKEN] };
    const start = new Date(Date.now() + 2000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const booking = await request({ ...soon, period: { start_date_time: start, end_date_time: at(world.origin, 60) } });
    expect(booking.reservation_status).toBe("RESERVED");
    await statusAtEmsp(booking.id, "NO_SHOW");
    const free = await atCpo(world, world.emsp, "GET", "/booking_locations/BL-SOON");
    expect(free.body.data.calendars[0].available_timeslots).toHaveLength(1);
  });

  it("fulfils the booking with a session started with its token at its Location in its period; FULFILLED stays final", async () => {
    // BL-MAIN allows an early start of 10 minutes: a session now fulfils a booking from 5 minutes on
    const booking = await request(requestBody(world.origin, 5, 65));
    expect((await startSession("S-OTHER-TOKEN", { ...EMS_CDR_TOKEN, uid: "NOT-BOOKED" })).body.status_code).toBe(1000);
    const listed = await atCpo(world, world.emsp, "GET", "");
    expect(listed.body.data.find((b: Json) => b.id === booking.id).reservation_status).toBe("RESERVED");
    expect((await startSession("S-1")).body.status_code).toBe(1000);
    await statusAtEmsp(booking.id, "FULFILLED");
    // final: the eMSP's cancellation is declined, the CPO's refused
    const cancel = await admin(world.emsp.url, "POST", `/bookings/cpo/${booking.id}/cancel`, {});
    expect(cancel.body.data.reservation_status).toBe("FULFILLED");
    expect(cancel.body.data.booking_requests.at(-1).request_status).toBe("DECLINED");
    const byCpo = await admin(world.cpoUrl, "POST", `/bookings/own/NL/CPO/${booking.id}/cancel`, { cancellation_reason: "BROKEN_CHARGER" });
    expect([byCpo.body.status_code, byCpo.body.status_message]).toEqual([2001, "a FULFILLED booking cannot become CANCELED (FULFILLED is final)"]);
    const change = await atCpo(world, world.emsp, "POST", "", { ...booking.booking_requests[0].booking_request, period: { start_date_time: at(world.origin, 120), end_date_time: at(world.origin, 180) } });
    expect(change.body.data.reservation_status).toBe("FULFILLED");
    expect(change.body.data.period.start_date_time).toBe(at(world.origin, 5));
  });

  it("does not fulfil a booking with a session outside its start window", async () => {
    const booking = await request(requestBody(world.origin, 120, 180));
    await startSession("S-EARLY");
    const list = await atCpo(world, world.emsp, "GET", "");
    expect(list.body.data.find((b: Json) => b.id === booking.id).reservation_status).toBe("RESERVED");
  });

  it("lets the CPO cancel a RESERVED booking at any time before it ends; the eMSP gets it CANCELED", async () => {
    const booking = await request(requestBody(world.origin, 20, 80));
    const byCpo = await admin(world.cpoUrl, "POST", `/bookings/own/NL/CPO/${booking.id}/cancel`, { cancellation_reason: "BROKEN_CHARGER" });
    expect(byCpo.body.data).toMatchObject({ reservation_status: "CANCELED", canceled: { cancellation_reason: "BROKEN_CHARGER", who_canceled: "CPO" } });
    await statusAtEmsp(booking.id, "CANCELED");
  });

  it("delivers a CDR of the booked session with its booking_id to the eMSP (2.3.0)", async () => {
    const booking = await request(requestBody(world.origin, 5, 65));
    await startSession("S-1");
    await statusAtEmsp(booking.id, "FULFILLED");
    const cdr = { ...cdrOf({ owner: CPO_PARTY, id: "CDR-B1", start: at(world.origin, 0), end: at(world.origin, 60), kwh: 10, cost: 5.6, place: LOC1 }), session_id: "S-1", booking_id: booking.id };
    expect((await admin(world.cpoUrl, "POST", "/events", { module: "cdrs", owner: CPO_PARTY, path: ["CDR-B1"], kind: "upsert", object: cdr })).body.status_code).toBe(1000);
    await until("the eMSP holds the CDR", async () => {
      const held = await ocpiRequest("GET", `${world.emsp.url}/ocpi/2.3.0/receiver/cdrs/NL/CPO/CDR-B1`, { token: world.emsp.cpoToken });
      return held.body?.data?.booking_id === booking.id;
    });
  });
});
