import "reflect-metadata";
import pino from "pino";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { EMS_CDR_TOKEN } from "../support/ocpi-objects";
import { ADMIN_TOKEN, EMS, admin } from "./bookings-world";
import { AnsweringCpo } from "./answering-cpo";

/**
 * The eMSP side's calls to a CPO (plugins/bookings/client.ts) when the CPO's answer cannot be taken: an answer
 * that is no Booking, and a CPO that cannot be reached, are the CPO's failure: 3001 on HTTP 502.
 */
describe("bookings client: a CPO's answer it cannot take", () => {
  let cpo: AnsweringCpo;
  let emsp: Gateway;
  let url: string;
  const body = {
    location_id: "LOC1",
    booking_location_id: "BL1",
    tokens: [EMS_CDR_TOKEN],
    period: { start_date_time: "2030-01-01T10:00:00Z", end_date_time: "2030-01-01T11:00:00Z" },
  };

  beforeEach(async () => {
    cpo = await new AnsweringCpo({ id: "B1", reservation_status: "RESERVED" }).start();
    const [port] = await freePorts(1);
    url = `http://127.0.0.1:${port}`;
    const config = testGatewayConfig({
      port,
      party: EMS,
      modules: { bookings: { adapter: "local", roles: ["RECEIVER"] } },
      server: { admin_token: ADMIN_TOKEN },
      partners: [{ id: "cpo", token_a: "answering-cpo-token-A-0123456789", versions_url: cpo.versionsUrl }],
    });
    emsp = await Gateway.create(config, { logger: pino({ level: "silent" }) });
    await emsp.listen();
    await emsp.credentials.register("cpo");
  });
  afterEach(async () => {
    await emsp?.close();
    await cpo?.close();
  });
  afterAll(() => removeTempDirs());

  it("answers 3001 on HTTP 502 naming what is missing when the CPO answers no valid Booking", async () => {
    const answer = await admin(url, "POST", "/bookings/cpo", body);
    expect([answer.status, answer.body.status_code]).toEqual([502, 3001]);
    expect(answer.body.status_message).toMatch(/^The CPO answered no valid Booking: .*\/booking_terms/);
  });

  it("answers 3001 on HTTP 502 when the CPO cannot be reached", async () => {
    await cpo.close();
    const answer = await admin(url, "POST", "/bookings/cpo", body);
    expect([answer.status, answer.body.status_code]).toEqual([502, 3001]);
    expect(answer.body.status_message).toContain("The CPO could not be reached or failed");
  });
});
