import "reflect-metadata";
import { removeTempDirs } from "../support/gateway-config";
import { ocpiRequest } from "../support/gateway-process";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";
import { OTH_TOKEN, admin, atCpo, heldBy, requestBody, startWorld, until, type BookingsWorld, type Json } from "./bookings-world";

/**
 * A booking belongs to the eMSP that requested it (with its tokens): another eMSP registered with the same CPO
 * gateway neither sees it (list, count, pushes) nor changes or cancels it, whatever request_id it sends.
 */
describe("bookings: one eMSP's bookings are its own", () => {
  let world: BookingsWorld;
  let booking: Json;
  beforeEach(async () => {
    world = await startWorld();
    booking = (await admin(world.emsp.url, "POST", "/bookings/cpo", requestBody(world.origin, 120, 180))).body.data;
    await until("the eMSP holds its booking", async () => (await heldBy(world.emsp, booking.id)) !== undefined);
  });
  afterEach(() => world?.close());
  afterAll(() => removeTempDirs());

  it("lists and counts the booking for its eMSP only", async () => {
    const own = await atCpo(world, world.emsp, "GET", "");
    expect([own.headers["x-total-count"], own.body.data.map((b: Json) => b.id)]).toEqual(["1", [booking.id]]);
    const other = await atCpo(world, world.other, "GET", "");
    expect([other.headers["x-total-count"], other.body.data]).toEqual(["0", []]);
    const otherBooking = (await admin(world.other.url, "POST", "/bookings/cpo", { ...requestBody(world.origin, 300, 360), tokens: [OTH_TOKEN] })).body.data;
    expect((await atCpo(world, world.emsp, "GET", "")).body.data.map((b: Json) => b.id)).toEqual([booking.id]);
    expect((await atCpo(world, world.other, "GET", "")).body.data.map((b: Json) => b.id)).toEqual([otherBooking.id]);
  });

  it("pushes the booking to its eMSP only", async () => {
    await admin(world.emsp.url, "POST", `/bookings/cpo/${booking.id}/cancel`, {});
    await until("the eMSP holds it CANCELED", async () => (await heldBy(world.emsp, booking.id))?.reservation_status === "CANCELED");
    expect(await heldBy(world.other, booking.id)).toBeUndefined();
  });

  it("does not let another eMSP change or cancel it, under its own party or the owner's", async () => {
    const request = booking.booking_requests[0].booking_request;
    const canceled = { cancellation_reason: "TRAFFIC", who_canceled: "EMSP" };
    const asItself = await atCpo(world, world.other, "POST", "", { ...request, country_code: "DE", party_id: "OTH", tokens: [OTH_TOKEN], canceled });
    expect([asItself.body.status_code, asItself.body.status_message]).toEqual([2001, expect.stringContaining("/request_id")]);
    const asOwner = await atCpo(world, world.other, "POST", "", { ...request, canceled });
    expect([asOwner.body.status_code, asOwner.body.status_message]).toEqual([2001, expect.stringContaining("/party_id: DE/EMS is not one of your parties")]);
    const withOwnersToken = await atCpo(world, world.other, "POST", "", { ...request, country_code: "DE", party_id: "OTH", tokens: [EMS_CDR_TOKEN] });
    expect([withOwnersToken.body.status_code, withOwnersToken.body.status_message]).toEqual([2001, expect.stringContaining("/tokens/0/party_id")]);
    // its own gateway does not hold the booking to cancel
    const throughItsGateway = await admin(world.other.url, "POST", `/bookings/cpo/${booking.id}/cancel`, {});
    expect(throughItsGateway.status).toBe(404);
    expect((await atCpo(world, world.emsp, "GET", "")).body.data[0].reservation_status).toBe("RESERVED");
  });

  it("does not let the CPO push another CPO party's booking path to the eMSP's Receiver", async () => {
    // the eMSP's Receiver takes bookings only under the CPO partner's own parties
    const put = await ocpiRequest("PUT", `${world.emsp.url}/ocpi/2.3.0/receiver/bookings/NL/XXX/${booking.id}`, { token: world.emsp.cpoToken, body: { ...booking, party_id: "XXX" } });
    expect(put.body.status_code).toBe(2001);
  });
});
