import "reflect-metadata";
import { redisStore, removeTempDirs } from "../support/gateway-config";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";
import { ocpiRequest } from "../support/gateway-process";
import { admin, at, atCpo, heldBy, requestBody, startWorld, until, type BookingsWorld, type Json } from "./bookings-world";

/**
 * Bookings (OCPI 2.3.0 Bookings extension 1.1) between an eMSP gateway and a CPO gateway on `local`, over
 * loopback: the eMSP's backend asks through its admin API, the eMSP gateway POSTs the BookingRequest to the
 * CPO's Sender, the CPO's desk decides, and every status change is pushed back to the eMSP's Receiver.
 */
describe("bookings: availability, requests, changes and cancellations", () => {
  let world: BookingsWorld;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world?.close());
  afterAll(() => removeTempDirs());

  const request = async (body: Json, emsp = world.emsp): Promise<Json> => {
    const answer = await admin(emsp.url, "POST", "/bookings/cpo", body);
    expect(answer.body.status_code).toBe(1000);
    return answer.body.data;
  };

  it("lists the BookingLocations with their free timeslots, filtered by timeslot_from/timeslot_to, paginated", async () => {
    const all = await atCpo(world, world.emsp, "GET", "/booking_locations");
    expect(all.status).toBe(200);
    expect(all.headers["x-total-count"]).toBe("2");
    expect(all.body.data.map((l: Json) => l.id)).toEqual(["BL-MAIN", "BL-SOON"]);
    expect(all.body.data[0].calendars[0].available_timeslots).toEqual([
      { start_date_time: at(world.origin, -60), end_date_time: at(world.origin, 8 * 60), max_power: 22000 },
    ]);
    const page = await atCpo(world, world.emsp, "GET", "/booking_locations?limit=1&offset=1");
    expect(page.body.data.map((l: Json) => l.id)).toEqual(["BL-SOON"]);
    const outside = await atCpo(world, world.emsp, "GET", `/booking_locations?timeslot_from=${at(world.origin, 9 * 60)}&timeslot_to=${at(world.origin, 10 * 60)}`);
    expect(outside.body.data[0].calendars[0].available_timeslots).toEqual([]);
    const calendar = await atCpo(world, world.emsp, "GET", "/booking_locations/bl-main/CAL1");
    expect(calendar.body.data.id).toBe("CAL1");
    // the eMSP's backend reads them through its gateway's admin API
    const viaAdmin = await admin(world.emsp.url, "GET", "/bookings/cpo/booking_locations");
    expect(viaAdmin.body.data.map((l: Json) => l.id)).toEqual(["BL-MAIN", "BL-SOON"]);
    const bad = await atCpo(world, world.emsp, "GET", "/booking_locations?timeslot_from=tomorrow");
    expect([bad.status, bad.body.status_code, bad.body.status_message]).toEqual([200, 2001, expect.stringContaining("timeslot_from")]);
  });

  it("pulls the CPO's BookingLocations into the eMSP's Receiver (sync)", async () => {
    const pull = await admin(world.emsp.url, "POST", "/sync/cpo/bookings");
    expect(pull.body.status_code).toBe(1000);
    const held = await ocpiRequest("GET", `${world.emsp.url}/ocpi/2.3.0/receiver/bookings/NL/CPO/booking_locations/BL-SOON`, { token: world.emsp.cpoToken });
    expect(held.body.data).toMatchObject({ id: "BL-SOON", location_id: "LOC2", calendars: [{ id: "CAL2" }] });
  });

  it("reserves a free slot at once, pushes the Booking to the eMSP, and takes the slot out of the calendar", async () => {
    const booking = await request(requestBody(world.origin, 120, 180));
    expect(booking).toMatchObject({ country_code: "NL", party_id: "CPO", location_id: "LOC1", reservation_status: "RESERVED", booking_tokens: [EMS_CDR_TOKEN] });
    expect(booking.booking_requests).toEqual([expect.objectContaining({ request_status: "ACCEPTED" })]);
    expect(booking.booking_terms.cancel_until_minutes).toBe(60);
    await until("the eMSP holds the RESERVED booking", async () => (await heldBy(world.emsp, booking.id))?.reservation_status === "RESERVED");
    const free = await atCpo(world, world.emsp, "GET", "/booking_locations/BL-MAIN");
    expect(free.body.data.calendars[0].available_timeslots.map((s: Json) => [s.start_date_time, s.end_date_time])).toEqual([
      [at(world.origin, -60), at(world.origin, 120)],
      [at(world.origin, 180), at(world.origin, 8 * 60)],
    ]);
  });

  it("rejects a request for a slot another booking holds, and one outside the calendar", async () => {
    await request(requestBody(world.origin, 120, 180));
    const taken = await request({ ...requestBody(world.origin, 150, 210), tokens: [] }, world.other);
    expect(taken.reservation_status).toBe("REJECTED");
    expect(taken.booking_requests[0].request_status).toBe("DECLINED");
    const outside = await request(requestBody(world.origin, 9 * 60, 10 * 60));
    expect(outside.reservation_status).toBe("REJECTED");
  });

  it("gives one slot to one of two requests that come at the same time", async () => {
    const answers = await Promise.all([request(requestBody(world.origin, 120, 180)), request({ ...requestBody(world.origin, 120, 180), tokens: [] }, world.other)]);
    expect(answers.map((b) => b.reservation_status).sort()).toEqual(["REJECTED", "RESERVED"]);
  });

  it("takes a BookingRequest and its retry arriving together as one request: one booking, both answered with it", async () => {
    const body = { ...requestBody(world.origin, 120, 180), country_code: "DE", party_id: "EMS", request_id: "REQ-TWICE", authorization_reference: "AUTH-TWICE" };
    const answers = await Promise.all([0, 1, 2].map(() => atCpo(world, world.emsp, "POST", "", body)));
    expect(answers.map((a) => a.body.status_code)).toEqual([1000, 1000, 1000]);
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(1);
    const listed = await atCpo(world, world.emsp, "GET", "");
    expect(listed.body.data.filter((b: Json) => b.request_id === "REQ-TWICE")).toHaveLength(1);
  });

  it("on a Redis store too: one slot for one of two requests at the same time, freed by a cancellation", async () => {
    await world.close();
    world = await startWorld({ cpoStore: redisStore() });
    const answers = await Promise.all([request(requestBody(world.origin, 120, 180)), request({ ...requestBody(world.origin, 130, 170), tokens: [] }, world.other)]);
    expect(answers.map((b) => b.reservation_status).sort()).toEqual(["REJECTED", "RESERVED"]);
    const [held] = answers.filter((b) => b.reservation_status === "RESERVED");
    const emsp = held.booking_requests[0].booking_request.party_id === "EMS" ? world.emsp : world.other;
    const canceled = await admin(emsp.url, "POST", `/bookings/cpo/${held.id}/cancel`, {});
    expect(canceled.body.data.reservation_status).toBe("CANCELED");
    expect((await request(requestBody(world.origin, 120, 180))).reservation_status).toBe("RESERVED");
  });

  it("pages the bookings list with X-Total-Count and Link", async () => {
    for (const [from, to] of [[60, 90], [120, 150], [180, 210]]) await request(requestBody(world.origin, from, to));
    const first = await atCpo(world, world.emsp, "GET", "?limit=2");
    expect([first.headers["x-total-count"], first.body.data.length]).toEqual(["3", 2]);
    expect(first.headers.link).toContain("offset=2");
    const rest = await atCpo(world, world.emsp, "GET", "?limit=2&offset=2");
    expect([rest.body.data.length, rest.headers.link]).toEqual([1, undefined]);
  });

  it("answers bodies that are no BookingRequest with an OCPI envelope below HTTP 500", async () => {
    for (const body of ["not json", "[]", "null", JSON.stringify({ period: 5 }), JSON.stringify({ tokens: "x", period: { start_date_time: "x" } })]) {
      const answer = await atCpo(world, world.emsp, "POST", "", body);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.status_code).toBeGreaterThanOrEqual(2000);
    }
  });

  it("changes a booking by a new POST with the same request_id", async () => {
    const booking = await request(requestBody(world.origin, 120, 180));
    const last = booking.booking_requests[0].booking_request;
    const changed = await atCpo(world, world.emsp, "POST", "", { ...last, period: { start_date_time: at(world.origin, 240), end_date_time: at(world.origin, 300) } });
    expect(changed.body.status_code).toBe(1000);
    expect(changed.body.data).toMatchObject({ id: booking.id, reservation_status: "RESERVED", period: { start_date_time: at(world.origin, 240) } });
    expect(changed.body.data.booking_requests.map((r: Json) => r.request_status)).toEqual(["ACCEPTED", "ACCEPTED"]);
    // the old slot is free again, the new one taken
    const free = await atCpo(world, world.emsp, "GET", "/booking_locations/BL-MAIN");
    expect(free.body.data.calendars[0].available_timeslots.map((s: Json) => s.end_date_time)).toEqual([at(world.origin, 240), at(world.origin, 8 * 60)]);
    await until("the eMSP holds the changed booking", async () => (await heldBy(world.emsp, booking.id))?.period.start_date_time === at(world.origin, 240));
    // a change keeps the booking where it is
    const moved = await atCpo(world, world.emsp, "POST", "", { ...last, location_id: "LOC2", booking_location_id: "BL-SOON" });
    expect([moved.body.status_code, moved.body.status_message]).toEqual([2001, expect.stringContaining("/location_id: the booking of request")]);
    const otherPlace = await atCpo(world, world.emsp, "POST", "", { ...last, booking_location_id: "BL-SOON" });
    expect([otherPlace.body.status_code, otherPlace.body.status_message]).toEqual([2001, expect.stringContaining("/booking_location_id: the booking of request")]);
  });

  it("cancels a booking inside cancel_until_minutes: CANCELED, pushed, the slot freed", async () => {
    const booking = await request(requestBody(world.origin, 120, 180));
    const canceled = await admin(world.emsp.url, "POST", `/bookings/cpo/${booking.id}/cancel`, { cancellation_reason: "TRAFFIC" });
    expect(canceled.body.data).toMatchObject({ reservation_status: "CANCELED", canceled: { cancellation_reason: "TRAFFIC", who_canceled: "EMSP" } });
    await until("the eMSP holds the CANCELED booking", async () => (await heldBy(world.emsp, booking.id))?.reservation_status === "CANCELED");
    const again = await request(requestBody(world.origin, 120, 180));
    expect(again.reservation_status).toBe("RESERVED");
  });

  it("refuses a cancellation after cancel_until_minutes: the request is DECLINED and the booking stays RESERVED", async () => {
    // cancel_until_minutes is 60: a booking starting in 40 minutes can no longer be canceled
    const booking = await request(requestBody(world.origin, 40, 100));
    const refused = await admin(world.emsp.url, "POST", `/bookings/cpo/${booking.id}/cancel`, {});
    expect(refused.body.data.reservation_status).toBe("RESERVED");
    expect(refused.body.data.booking_requests.map((r: Json) => r.request_status)).toEqual(["ACCEPTED", "DECLINED"]);
  });

  it("answers 2001 naming the field for a request it cannot take", async () => {
    const post = (body: Json) => atCpo(world, world.emsp, "POST", "", body);
    const base = { country_code: "DE", party_id: "EMS", request_id: "R-1", authorization_reference: "AUTH-1", ...requestBody(world.origin, 120, 180) };
    const cases: [Json, string][] = [
      [{ ...base, period: undefined }, "/period"],
      [{ ...base, booking_location_id: "NOPE" }, "/booking_location_id"],
      [{ ...base, location_id: "LOC2" }, "/location_id"],
      [{ ...base, party_id: "OTH" }, "/party_id"],
      [{ ...base, tokens: [{ ...EMS_CDR_TOKEN, party_id: "OTH" }] }, "/tokens/0/party_id"],
      [{ ...base, period: { start_date_time: at(world.origin, 180), end_date_time: at(world.origin, 120) } }, "/period/end_date_time"],
      [{ ...base, canceled: { cancellation_reason: "TRAFFIC", who_canceled: "EMSP" } }, "/request_id"],
    ];
    for (const [body, field] of cases) {
      const answer = await post(body);
      expect([answer.status, answer.body.status_code]).toEqual([200, 2001]);
      expect(answer.body.status_message).toContain(field);
    }
  });
});
