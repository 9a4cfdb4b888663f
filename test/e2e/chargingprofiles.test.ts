import "reflect-metadata";
import pino from "pino";
import type { PartyRef } from "../../core/protocol/types";
import { Gateway } from "../../app/gateway";
import {
  ACTIVE_PROFILES,
  PROFILE_OUTCOMES,
  type ReceivedActiveProfile,
  type ReceivedProfileOutcomes,
} from "../../adapters/local/chargingprofiles";
import { removeTempDirs, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest } from "../support/gateway-process";
import { ADMIN_TOKEN, CONNECTOR_MAX_W, adminApi, eventually, seedFile, sleep } from "../support/charge-point";

/**
 * Issue #4, charging profiles end to end: a CPO gateway whose `local`
 * adapter simulates the charge point, and a Smart Charging (eMSP) gateway,
 * on loopback with their own stores. The eMSP's backend sets, reads and
 * clears the profile of a session through the admin API; results come back
 * to the eMSP's response_urls; the CPO's backend reports an active-profile
 * change, which goes only to partners that once set a profile on the session.
 */

type Json = Record<string, any>;

const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
const CPO_REF: PartyRef = { country_code: "NL", party_id: "CPO" };
const CPO_TIMEOUT_SECONDS = 1;
const quiet = () => pino({ level: "silent" });

const PROFILE = {
  charging_rate_unit: "W",
  min_charging_rate: 1500,
  charging_profile_period: [
    { start_period: 0, limit: 11000 },
    { start_period: 1800, limit: 7400 },
  ],
};

describe.each(["2.3.0", "2.2.1"] as const)("charging profiles between a Smart Charging party and a CPO in %s", (version) => {
  let cpo: Gateway;
  let emsp: Gateway;
  let urls: { cpo: string; emsp: string };

  beforeAll(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    urls = { cpo: `http://127.0.0.1:${cpoPort}`, emsp: `http://127.0.0.1:${emspPort}` };
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: CPO,
        modules: { chargingprofiles: { adapter: "local" } },
        adapters: {
          local: {
            // a session per test that sets a profile (SES2: nobody ever sets one)
            seed: seedFile(CPO_REF, ["SES1", "SES2", "SES3", "SES4", "SES5"]),
            simulator: { outcome: "ACCEPTED", delay_ms: 50 },
          },
        },
        server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: CPO_TIMEOUT_SECONDS },
        partners: [{ id: "emsp", token_a: `token-a-profiles-${version}`, versions_url: versionsUrlOf(emspPort) }],
      }),
      { logger: quiet() },
    );
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules: { chargingprofiles: { adapter: "local" } },
        server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: 3 },
        partners: [{ id: "cpo", token_a: `token-a-profiles-${version}`, versions_url: versionsUrlOf(cpoPort), versions: [version] }],
      }),
      { logger: quiet() },
    );
    await cpo.listen();
    await emsp.listen();
    expect(await emsp.credentials.register("cpo")).toMatchObject({ status: "registered", version });
  });

  afterAll(async () => {
    await Promise.all([cpo?.close(), emsp?.close()]);
    removeTempDirs();
  });

  const backend = { emsp: () => adminApi(urls.emsp), cpo: () => adminApi(urls.cpo) };

  /** The request's record on the eMSP once it is finished, and what the eMSP's adapter received for it (exactly one outcome). */
  const outcomeOf = async (uid: string): Promise<Json> => {
    const state = await eventually(async () => {
      const { body } = await backend.emsp().get(`/chargingprofiles/requests/${uid}`);
      expect(body.data.state).toBe("done");
      return body.data;
    });
    const inbox = await emsp.store.get<ReceivedProfileOutcomes>(PROFILE_OUTCOMES, uid);
    expect(inbox?.outcomes).toHaveLength(1);
    expect(state.callbacks).toBe(1);
    return { state, outcome: inbox!.outcomes[0] };
  };

  const activeUpdate = (sessionId: string, limit: number) =>
    backend.cpo().put(`/active-charging-profiles/${sessionId}`, {
      start_date_time: "2024-05-01T10:30:00Z",
      charging_profile: { charging_rate_unit: "W", charging_profile_period: [{ start_period: 0, limit }] },
    });

  /** Sets PROFILE on the session and waits for its result: what the tests that read, clear or follow a profile start from. */
  const profileSet = async (sessionId: string): Promise<void> => {
    const { body } = await backend.emsp().put(`/chargingprofiles/cpo/${sessionId}`, PROFILE);
    expect(body.data.response.result).toBe("ACCEPTED");
    expect((await outcomeOf(body.data.uid)).outcome).toEqual({ kind: "result", result: { result: "ACCEPTED" } });
  };

  it("set: the CPO answers ACCEPTED at once and posts the charge point's ChargingProfileResult", async () => {
    const { body } = await backend.emsp().put("/chargingprofiles/cpo/SES1", PROFILE);
    expect(body).toMatchObject({ status_code: 1000, data: { response: { result: "ACCEPTED", timeout: CPO_TIMEOUT_SECONDS } } });
    const { state, outcome } = await outcomeOf(body.data.uid);
    expect(state).toMatchObject({ operation: "SET_PROFILE", session_id: "SES1", result: { result: "ACCEPTED" }, timed_out: false });
    expect(outcome).toEqual({ kind: "result", result: { result: "ACCEPTED" } });
  });

  it("get active: the ActiveChargingProfileResult carries the profile set, for the duration asked", async () => {
    await profileSet("SES3");
    const { body } = await backend.emsp().post("/chargingprofiles/cpo/SES3/active", { duration: 900 });
    expect(body.data.response.result).toBe("ACCEPTED");
    const { outcome } = await outcomeOf(body.data.uid);
    expect(outcome.result).toEqual({
      result: "ACCEPTED",
      profile: { start_date_time: expect.any(String), charging_profile: { ...PROFILE, duration: 900 } },
    });
  });

  it("an unsolicited active-profile update reaches only a partner that set a profile on the session (rules 1-2)", async () => {
    await profileSet("SES4");
    const { body } = await activeUpdate("SES4", 3700);
    expect(body.data).toEqual({ session_id: "SES4", notified: ["emsp"] });
    const received = await eventually(async () => {
      const update = await emsp.store.get<ReceivedActiveProfile>(ACTIVE_PROFILES, "cpo:SES4");
      expect(update).toBeDefined();
      return update!;
    });
    expect(received).toMatchObject({ partner_id: "cpo", session_id: "SES4", updates: 1 });
    expect(received.profile.charging_profile.charging_profile_period).toEqual([{ start_period: 0, limit: 3700 }]);

    // SES2: nobody ever set a profile on it, so nobody is told
    expect((await activeUpdate("SES2", 3700)).body.data).toEqual({ session_id: "SES2", notified: [] });
    await sleep(300);
    expect(await emsp.store.get(ACTIVE_PROFILES, "cpo:SES2")).toBeUndefined();
  });

  it("clear: the ClearProfileResult comes back, and the session's active profile is the EVSE's maximum again (rule 5)", async () => {
    await profileSet("SES5");
    const { body } = await backend.emsp().delete("/chargingprofiles/cpo/SES5");
    expect(body.data.response).toEqual({ result: "ACCEPTED", timeout: CPO_TIMEOUT_SECONDS });
    const { state, outcome } = await outcomeOf(body.data.uid);
    expect(state).toMatchObject({ operation: "CLEAR_PROFILE", result: { result: "ACCEPTED" }, timed_out: false });
    expect(outcome).toEqual({ kind: "result", result: { result: "ACCEPTED" } });

    const active = await backend.emsp().post("/chargingprofiles/cpo/SES5/active", { duration: 300 });
    const { outcome: after } = await outcomeOf(active.body.data.uid);
    expect(after.result.profile.charging_profile).toEqual({
      charging_rate_unit: "W",
      charging_profile_period: [{ start_period: 0, limit: CONNECTOR_MAX_W }],
      duration: 300,
    });
  });

  it("a session the CPO does not know: UNKNOWN_SESSION at once, and no result follows", async () => {
    const { body } = await backend.emsp().put("/chargingprofiles/cpo/NO-SUCH-SESSION", PROFILE);
    expect(body.data.response.result).toBe("UNKNOWN_SESSION");
    const { body: state } = await backend.emsp().get(`/chargingprofiles/requests/${body.data.uid}`);
    expect(state.data).toMatchObject({ state: "done", callbacks: 0 });
    expect(state.data.result).toBeUndefined();
  });

  it("a result for an unknown request is 404, and an invalid profile is 2001 naming the field", async () => {
    const tokenToEmsp = (await cpo.registry.get("emsp"))!.tokenToPartner!;
    const unknown = await ocpiRequest("POST", `${urls.emsp}/ocpi/${version}/sender/chargingprofiles/results/00000000-0000-0000-0000-000000000000`, {
      token: tokenToEmsp,
      body: { result: "ACCEPTED" },
    });
    expect(unknown.status).toBe(404);
    const invalid = await backend.emsp().put("/chargingprofiles/cpo/SES1", { ...PROFILE, charging_rate_unit: "kW" });
    expect(invalid.body.status_code).toBe(2001);
    expect(invalid.body.status_message).toContain("/charging_rate_unit");
  });
});
