import "reflect-metadata";
import pino from "pino";
import request from "supertest";
import { startHarness, type Harness } from "../support/module-harness";
import { ChargingProfilesPlugin } from "../../plugins/chargingprofiles/module";
import { localChargingProfiles } from "../../adapters/local/chargingprofiles";
import { localLocations } from "../../adapters/local/locations";
import { localSessions } from "../../adapters/local/sessions";
import { Gateway } from "../../app/gateway";
import { Outbox } from "../../core/outbox/outbox";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts } from "../support/gateway-process";
import { eventually, location, seedFile, session, sleep } from "../support/charge-point";

const OURS = { country_code: "NL", party_id: "GWY" };
const RESPONSE_URL = "http://127.0.0.1:9/callbacks/profiles/1";
const PROFILE = { charging_rate_unit: "A", charging_profile_period: [{ start_period: 0, limit: 16 }] };

describe("chargingprofiles module, receiver (CPO)", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      plugins: [ChargingProfilesPlugin],
      localModules: [localLocations, localSessions, localChargingProfiles],
      modules: ["chargingprofiles"],
      seed: { locations: [location(OURS)], sessions: [session(OURS, "SES1")] },
    });
  });
  afterAll(() => h.close());

  const url = (rest: string, version: "2.3.0" | "2.2.1" | "2.1.1" = "2.3.0") => h.path(version, "RECEIVER", "chargingprofiles", rest);

  it("GET, PUT and DELETE answer ChargingProfileResponse ACCEPTED with the timeout at once", async () => {
    const get = await h.http.get(url(`/SES1?duration=900&response_url=${encodeURIComponent(RESPONSE_URL)}`)).set("Authorization", h.auth);
    const put = await h.http.put(url("/SES1")).set("Authorization", h.auth).send({ charging_profile: PROFILE, response_url: RESPONSE_URL });
    const del = await h.http.delete(url(`/SES1?response_url=${encodeURIComponent(RESPONSE_URL)}`)).set("Authorization", h.auth);
    for (const res of [get, put, del]) expect(res.body).toMatchObject({ status_code: 1000, data: { result: "ACCEPTED", timeout: 30 } });
  });

  it.each([
    ["without duration", `/SES1?response_url=${encodeURIComponent(RESPONSE_URL)}`, "query parameter duration is required"],
    ["with a duration that is no number", `/SES1?duration=soon&response_url=${encodeURIComponent(RESPONSE_URL)}`, "duration must be a whole number"],
    ["without response_url", "/SES1?duration=60", "query parameter response_url is required"],
    ["with a response_url on a host the partner may not use", `/SES1?duration=60&response_url=${encodeURIComponent("http://10.0.0.1/x")}`, "response_url host 10.0.0.1 is not allowed"],
    ["with a session_id longer than 36", `/${"S".repeat(37)}?duration=60&response_url=${encodeURIComponent(RESPONSE_URL)}`, "session_id"],
  ])("GET %s: 2001", async (_what, rest, message) => {
    const res = await h.http.get(url(rest)).set("Authorization", h.auth);
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain(message);
  });

  it("PUT with an invalid profile: 2001 naming the field", async () => {
    const res = await h.http
      .put(url("/SES1"))
      .set("Authorization", h.auth)
      .send({ charging_profile: { ...PROFILE, charging_profile_period: [{ start_period: -1, limit: 16 }] }, response_url: RESPONSE_URL });
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/charging_profile/charging_profile_period/0/start_period");
  });

  it("an unknown session: UNKNOWN_SESSION", async () => {
    const res = await h.http.put(url("/NOPE")).set("Authorization", h.auth).send({ charging_profile: PROFILE, response_url: RESPONSE_URL });
    expect(res.body.data).toEqual({ result: "UNKNOWN_SESSION", timeout: 30 });
  });

  it("does not exist in 2.1.1", async () => {
    const res = await h.http.put(url("/SES1", "2.1.1")).set("Authorization", h.auth).send({ charging_profile: PROFILE, response_url: RESPONSE_URL });
    expect(res.status).toBe(404);
  });
});

describe("chargingprofiles module, a charge point that does not answer", () => {
  let gateway: Gateway;
  let auth: string;

  beforeAll(async () => {
    const [port] = await freePorts(1);
    const config = testGatewayConfig({
      port,
      party: { ...OURS, role: "CPO" },
      modules: { chargingprofiles: { adapter: "local" } },
      adapters: { local: { seed: seedFile(OURS), simulator: { outcome: "NO_ANSWER" } } },
      server: { command_timeout_seconds: 1 },
      // named by the operator, so the outbound policy lets deliveries reach (and fail on) the closed port 9
      partners: [{ id: "partner", versions_url: "http://127.0.0.1:9/versions" }],
    });
    gateway = await Gateway.create(config, { logger: pino({ level: "silent" }) });
    const token = await gateway.registry.issueToken("partner");
    await gateway.registry.recordRegistration("partner", {
      version: "2.3.0",
      versionsUrl: "http://127.0.0.1:9/versions",
      endpoints: [],
      roles: [{ country_code: "DE", party_id: "EMS", role: "EMSP", business_details: { name: "eMSP" } }],
      tokenToPartner: "token-to-partner",
    });
    auth = `Token ${Buffer.from(token).toString("base64")}`;
    // serving starts the timeouts (and the outbox, whose deliveries to 127.0.0.1:9 fail and wait for a retry)
    await gateway.listen();
  });
  afterAll(async () => {
    await gateway?.close();
    removeTempDirs();
  });

  it("the gateway posts REJECTED once, after the timeout it announced", async () => {
    const res = await request(gateway.app.callback())
      .put("/ocpi/2.3.0/receiver/chargingprofiles/SES1")
      .set("Authorization", auth)
      .send({ charging_profile: PROFILE, response_url: RESPONSE_URL });
    expect(res.body.data).toEqual({ result: "ACCEPTED", timeout: 1 });
    const outbox = gateway.container.resolve(Outbox);
    const queued = await eventually(async () => {
      const { items } = await outbox.pending("partner");
      expect(items).toHaveLength(1);
      return items[0];
    }, 5000);
    expect(queued).toMatchObject({
      essential: true,
      request: { method: "POST", target: { url: RESPONSE_URL }, body: { result: "REJECTED" } },
    });
    await sleep(600);
    expect((await outbox.pending("partner")).items).toHaveLength(1);
  });
});
