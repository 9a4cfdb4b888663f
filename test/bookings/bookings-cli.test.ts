import "reflect-metadata";
import { removeTempDirs } from "../support/gateway-config";
import { runCli, type CliResult } from "../support/gateway-process";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";
import { at, heldBy, startWorld, until, type BookingsWorld } from "./bookings-world";

// Each CLI run is a Node process building a gateway (~1 s of CPU); leave room for a busy machine.
jest.setTimeout(60_000);

/**
 * `ocpi-gateway bookings …` as the eMSP's operator runs it: real CLI processes (dist/) on a serving eMSP
 * gateway's config and store, against the CPO gateway over loopback. They take the admin API's code path
 * (plugins/bookings/client.ts). Exit codes: 0 done, 1 refused or failed, 2 usage.
 */
describe("ocpi-gateway bookings", () => {
  let world: BookingsWorld;
  const bookings = (...args: string[]): Promise<CliResult> => runCli(["bookings", ...args], world.emsp.configFile);
  const requestArgs = (from: number, to: number) => [
    "--location", "LOC1", "--booking-location", "BL-MAIN", "--from", at(world.origin, from), "--to", at(world.origin, to),
    "--token-uid", EMS_CDR_TOKEN.uid, "--contract-id", EMS_CDR_TOKEN.contract_id,
  ];

  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world?.close());
  afterAll(() => removeTempDirs());

  it("prints its usage with --help (exit 0), and names a usage error (exit 2)", async () => {
    const help = await bookings("--help");
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toContain("ocpi-gateway bookings request <partner> --location ID");
    const usage = await bookings("cancel", "cpo");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("cancel takes <partner> <booking_id>");
  });

  it("requests a booking, lists it, cancels it; the serving gateway holds each status the CPO pushed", async () => {
    const requested = await bookings("request", "cpo", ...requestArgs(120, 180), "--json");
    expect([requested.code, requested.stderr]).toEqual([0, ""]);
    const booking = JSON.parse(requested.stdout);
    expect(booking).toMatchObject({ reservation_status: "RESERVED", booking_tokens: [EMS_CDR_TOKEN] });
    await until("the eMSP holds it RESERVED", async () => (await heldBy(world.emsp, booking.id))?.reservation_status === "RESERVED");

    const listed = await bookings("list", "cpo");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${booking.id}  RESERVED  request ${booking.request_id}  location LOC1`);

    const canceled = await bookings("cancel", "cpo", booking.id, "--reason", "TRAFFIC");
    expect(canceled.code).toBe(0);
    expect(canceled.stdout).toContain(`${booking.id}  CANCELED`);
    await until("the eMSP holds it CANCELED", async () => (await heldBy(world.emsp, booking.id))?.reservation_status === "CANCELED");
    const held = await bookings("get", "cpo", booking.id);
    expect(JSON.parse(held.stdout).canceled).toEqual({ cancellation_reason: "TRAFFIC", who_canceled: "EMSP" });
  });

  it("follows a PENDING booking with --wait until the CPO decides it", async () => {
    await world.close();
    world = await startWorld({ decisionMs: 1000 });
    const requested = await bookings("request", "cpo", ...requestArgs(120, 180), "--wait", "20");
    expect([requested.code, requested.stderr]).toEqual([0, ""]);
    expect(requested.stdout).toMatch(/ RESERVED  request /);
  });

  it("exits 1 naming the field or the reason when a request is refused", async () => {
    const noPeriod = await bookings("request", "cpo", "--location", "LOC1", "--booking-location", "BL-MAIN");
    expect(noPeriod.code).toBe(1);
    expect(noPeriod.stderr).toContain("/period");
    const unknown = await bookings("request", "cpo", ...requestArgs(120, 180).map((a) => (a === "BL-MAIN" ? "BL-NONE" : a)));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/The CPO refused the request: .*booking_location_id/);
    const notHeld = await bookings("cancel", "cpo", "NO-SUCH-BOOKING");
    expect(notHeld.code).toBe(1);
    expect(notHeld.stderr).toContain("Booking NO-SUCH-BOOKING from cpo not found");
  });
});
