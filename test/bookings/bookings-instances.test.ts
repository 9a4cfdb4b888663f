import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { redisStore, removeTempDirs } from "../support/gateway-config";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";
import { admin, at, heldBy, startWorld, until, type BookingsWorld } from "./bookings-world";

/**
 * Two instances of the CPO gateway on one Redis store, both running the scheduled no-show check: the booking
 * becomes NO_SHOW once, and is pushed to its eMSP once (the lifecycle's atomic update lets one instance move it;
 * the other's report is refused).
 */
describe("bookings: the no-show check on two instances", () => {
  let world: BookingsWorld;
  let second: Gateway | undefined;
  beforeEach(async () => {
    world = await startWorld({ cpoStore: redisStore() });
    second = await Gateway.create({ ...world.cpoConfig, server: { ...world.cpoConfig.server, port: 0 } }, { logger: pino({ level: "silent" }) });
    await second.listen();
  });
  afterEach(async () => {
    await second?.close();
    await world?.close();
  });
  afterAll(() => removeTempDirs());

  it("moves a booking nobody came for once, and pushes it once", async () => {
    const start = new Date(Date.now() + 1500).toISOString().replace(/\.\d{3}Z$/, "Z");
    const body = { location_id: "LOC2", booking_location_id: "BL-SOON", tokens: [EMS_CDR_TOKEN], period: { start_date_time: start, end_date_time: at(world.origin, 60) } };
    const booking = (await admin(world.emsp.url, "POST", "/bookings/cpo", body)).body.data;
    expect(booking.reservation_status).toBe("RESERVED");
    await until("the eMSP holds it NO_SHOW", async () => (await heldBy(world.emsp, booking.id))?.reservation_status === "NO_SHOW");
    // a few more checks on both instances
    await new Promise((resolve) => setTimeout(resolve, 500));
    const outbox = async () => (await admin(world.cpoUrl, "GET", "/outbox")).body.data.find((p: { partner: string }) => p.partner === "emsp");
    await until("the outbox is empty", async () => (await outbox()).queued === 0);
    // RESERVED, then NO_SHOW: two pushes of the booking, not three
    expect((await outbox()).delivered).toBe(2);
  });
});
