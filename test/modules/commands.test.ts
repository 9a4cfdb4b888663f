import type { VersionNumber } from "../../core/protocol/types";
import { startHarness, type Harness } from "../support/module-harness";
import { CommandsPlugin } from "../../plugins/commands/module";
import { localCommands } from "../../adapters/local/commands";
import { localLocations } from "../../adapters/local/locations";
import { localSessions } from "../../adapters/local/sessions";
import { silentTranslation } from "../../core/model/object-type";
import {
  COMMANDS_TRANSLATION_LOSSES,
  commandResultType,
  commandResponseType,
  reserveNowType,
  startSessionType,
} from "../../plugins/commands/translate";
import { COMMAND_BODIES, location, session, token } from "../support/charge-point";

type Json = Record<string, any>;

const OURS = { country_code: "NL", party_id: "GWY" };
/** the harness's partner registered with a versions URL on 127.0.0.1: callbacks there are allowed */
const RESPONSE_URL = "http://127.0.0.1:9/callbacks/commands/1";
const DEFAULT_TIMEOUT_SECONDS = 30;

/** A 2.1.1 Token: no owner, auth_id instead of contract_id. */
const token211 = (() => {
  const { country_code: _cc, party_id: _pid, contract_id, ...rest } = token;
  return { ...rest, auth_id: contract_id };
})();

describe("commands module, receiver (CPO)", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      plugins: [CommandsPlugin],
      localModules: [localLocations, localSessions, localCommands],
      modules: ["commands"],
      seed: { locations: [location(OURS)], sessions: [session(OURS, "SES1")] },
    });
  });
  afterAll(() => h.close());

  const post = (version: VersionNumber, command: string, body: unknown) =>
    h.http.post(h.path(version, "RECEIVER", "commands", `/${command}`)).set("Authorization", h.auth).send(body as object);
  const command = (name: keyof typeof COMMAND_BODIES, extra: Json = {}) => ({ ...COMMAND_BODIES[name], response_url: RESPONSE_URL, ...extra });

  it("answers a valid START_SESSION at once with ACCEPTED and the timeout to wait for the result", async () => {
    const res = await post("2.3.0", "START_SESSION", command("START_SESSION"));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status_code: 1000, data: { result: "ACCEPTED", timeout: DEFAULT_TIMEOUT_SECONDS } });
  });

  it.each([
    ["a missing location_id", { location_id: undefined }, "/location_id"],
    ["a connector_id without evse_uid", { evse_uid: undefined }, "/evse_uid: is required when connector_id is given"],
    ["a response_url that is not http(s)", { response_url: "ftp://127.0.0.1/x" }, "/response_url: must be an http(s) URL"],
    ["a token without uid", { token: { ...token, uid: undefined } }, "/token/uid"],
  ])("refuses %s with 2001 naming the field", async (_what, change, message) => {
    const res = await post("2.3.0", "START_SESSION", command("START_SESSION", change));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain(message);
  });

  it("refuses a response_url on a host the partner may not use, with 2001", async () => {
    const res = await post("2.3.0", "STOP_SESSION", command("STOP_SESSION", { response_url: "http://10.0.0.1/callback" }));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toBe("response_url host 10.0.0.1 is not allowed for this partner (see partners[].callback_hosts)");
  });

  it("an unknown location: status 2003 with CommandResponse REJECTED", async () => {
    const res = await post("2.3.0", "UNLOCK_CONNECTOR", command("UNLOCK_CONNECTOR", { location_id: "NOWHERE" }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status_code: 2003,
      data: { result: "REJECTED", timeout: DEFAULT_TIMEOUT_SECONDS, message: [{ language: "en", text: "Unknown location NOWHERE" }] },
    });
  });

  it("an unknown EVSE or connector: REJECTED; location ids compare case-insensitively", async () => {
    const evse = await post("2.3.0", "UNLOCK_CONNECTOR", command("UNLOCK_CONNECTOR", { location_id: "loc1", evse_uid: "EVSE9" }));
    expect(evse.body).toMatchObject({ status_code: 1000, data: { result: "REJECTED", message: [{ text: "Unknown EVSE EVSE9 at location loc1" }] } });
    const connector = await post("2.3.0", "UNLOCK_CONNECTOR", command("UNLOCK_CONNECTOR", { connector_id: "7" }));
    expect(connector.body.data).toMatchObject({ result: "REJECTED", message: [{ text: "Unknown connector 7 at EVSE EVSE1" }] });
  });

  it("START_SESSION at an EVSE with START_SESSION_CONNECTOR_REQUIRED needs a connector_id", async () => {
    const without = await post("2.3.0", "START_SESSION", command("START_SESSION", { evse_uid: "EVSE2", connector_id: undefined }));
    expect(without.body.status_code).toBe(2001);
    expect(without.body.status_message).toContain("/connector_id: is required");
    const withIt = await post("2.2.1", "START_SESSION", command("START_SESSION", { evse_uid: "EVSE2", connector_id: "2" }));
    expect(withIt.body.data.result).toBe("ACCEPTED");
  });

  it("STOP_SESSION: UNKNOWN_SESSION for a session the charge point does not know", async () => {
    expect((await post("2.3.0", "STOP_SESSION", command("STOP_SESSION", { session_id: "NOPE" }))).body.data.result).toBe("UNKNOWN_SESSION");
    expect((await post("2.3.0", "STOP_SESSION", command("STOP_SESSION"))).body.data.result).toBe("ACCEPTED");
  });

  it("a command type it does not know is NOT_SUPPORTED (CommandType is open in 2.3.0)", async () => {
    const res = await post("2.3.0", "CHARGE_FASTER", { response_url: RESPONSE_URL });
    expect(res.body).toMatchObject({ status_code: 1000, data: { result: "NOT_SUPPORTED", timeout: DEFAULT_TIMEOUT_SECONDS } });
  });

  it("2.2.1: the Token's type is a closed enum", async () => {
    const res = await post("2.2.1", "RESERVE_NOW", command("RESERVE_NOW", { token: { ...token, type: "EMAID" } }));
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/token/type");
  });

  describe("2.1.1", () => {
    it("answers a CommandResponse with only result", async () => {
      const res = await post("2.1.1", "START_SESSION", { response_url: RESPONSE_URL, token: token211, location_id: "LOC1", evse_uid: "EVSE1" });
      expect(res.body).toMatchObject({ status_code: 1000 });
      expect(res.body.data).toEqual({ result: "ACCEPTED" });
    });

    it("has no CANCEL_RESERVATION: NOT_SUPPORTED", async () => {
      const res = await post("2.1.1", "CANCEL_RESERVATION", { response_url: RESPONSE_URL, reservation_id: "1" });
      expect(res.body.data).toEqual({ result: "NOT_SUPPORTED" });
    });

    it("reservation_id is an integer", async () => {
      const body = { response_url: RESPONSE_URL, token: token211, expiry_date: "2030-01-01T00:00:00Z", reservation_id: "R1", location_id: "LOC1" };
      const res = await post("2.1.1", "RESERVE_NOW", body);
      expect(res.body.status_code).toBe(2001);
      expect(res.body.status_message).toContain("/reservation_id");
      expect((await post("2.1.1", "RESERVE_NOW", { ...body, reservation_id: 7 })).body.data).toEqual({ result: "ACCEPTED" });
    });
  });
});

describe("commands module, sender (eMSP) callbacks", () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({ plugins: [CommandsPlugin], localModules: [localCommands], modules: ["commands"], party: { role: "EMSP" } });
  });
  afterAll(() => h.close());

  it("a result for a command it never sent: HTTP 404 with 2001", async () => {
    const res = await h.http
      .post(h.path("2.3.0", "SENDER", "commands", "/START_SESSION/0b6cc3bd-4d8b-4bb0-9c8c-2f2b6a8f7e55"))
      .set("Authorization", h.auth)
      .send({ result: "ACCEPTED" });
    expect(res.status).toBe(404);
    expect(res.body.status_code).toBe(2001);
  });

  it("an invalid CommandResult: 2001 naming the field", async () => {
    const res = await h.http.post(h.path("2.3.0", "SENDER", "commands", "/START_SESSION/x")).set("Authorization", h.auth).send({ result: "MAYBE" });
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toContain("/result");
  });
});

describe("commands the backend sends: the partner named is admitted by the edge's one rule (issue #23)", () => {
  const ADMIN = "admin-token-for-command-admission";
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      plugins: [CommandsPlugin],
      localModules: [localCommands],
      modules: ["commands"],
      party: { role: "EMSP" },
      adminToken: ADMIN,
      partnerRoles: [{ country_code: "DE", party_id: "CPO", role: "CPO", business_details: { name: "CPO" } }],
      partnerConfig: { modules: ["locations"] },
    });
  });
  afterAll(() => h.close());

  const send = (partner: string) =>
    h.http.post(`/admin/v1/commands/${partner}/UNLOCK_CONNECTOR`).set("Authorization", `Bearer ${ADMIN}`).send(COMMAND_BODIES.UNLOCK_CONNECTOR);

  it("a partner the config does not offer commands to: 2001 naming the partner and the rule", async () => {
    const res = await send("partner");
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toBe("partner: partner is not offered commands in OCPI 2.3.0 (partners[].modules, partners[].extensions)");
  });

  it("a partner that is not registered: 2001 naming the partner", async () => {
    const res = await send("nobody");
    expect(res.body.status_code).toBe(2001);
    expect(res.body.status_message).toBe("partner: nobody is not a registered partner");
  });
});

describe("commands translation", () => {
  const tx = silentTranslation();

  it("2.1.1 results: a CommandResponse with the results 2.1.1 knows, the others as REJECTED", () => {
    expect(commandResultType.down({ result: "TIMEOUT", message: [{ language: "en", text: "x" }] }, "2.1.1", tx)).toEqual({ result: "TIMEOUT" });
    expect(commandResultType.down({ result: "EVSE_OCCUPIED" }, "2.1.1", tx)).toEqual({ result: "REJECTED" });
    expect(commandResultType.up({ result: "UNKNOWN_SESSION" }, "2.1.1", tx)).toEqual({ result: "REJECTED" });
    expect(commandResponseType.down({ result: "ACCEPTED", timeout: 30 }, "2.1.1", tx)).toEqual({ result: "ACCEPTED" });
  });

  it("2.1.1 requests: the Token's owner comes from the partner, reservation ids are integers, 2.2-only fields are dropped", () => {
    const owner = { ...silentTranslation(), owner: { country_code: "DE", party_id: "EMS" } };
    const up = reserveNowType.up({ ...COMMAND_BODIES.RESERVE_NOW, token: token211, reservation_id: 42, response_url: RESPONSE_URL }, "2.1.1", owner);
    expect(up).toMatchObject({ reservation_id: "42", token: { country_code: "DE", party_id: "EMS", contract_id: token.contract_id } });
    const down = startSessionType.down({ ...COMMAND_BODIES.START_SESSION, authorization_reference: "A1", response_url: RESPONSE_URL } as never, "2.1.1", tx) as Json;
    expect(down).not.toHaveProperty("connector_id");
    expect(down).not.toHaveProperty("authorization_reference");
    expect(down.token).toEqual(token211);
    expect(() => reserveNowType.down({ ...COMMAND_BODIES.RESERVE_NOW, reservation_id: "R-1", response_url: RESPONSE_URL } as never, "2.1.1", tx)).toThrow(
      /reservation_id must be a whole number/,
    );
  });

  it("every field a translation drops is listed in COMMANDS_TRANSLATION_LOSSES", () => {
    const dropped: string[] = [];
    const recording = { ...silentTranslation(), dropped: (field: string) => void dropped.push(field) };
    startSessionType.down({ ...COMMAND_BODIES.START_SESSION, authorization_reference: "A1", response_url: RESPONSE_URL } as never, "2.1.1", recording);
    reserveNowType.down({ ...COMMAND_BODIES.RESERVE_NOW, authorization_reference: "A1", response_url: RESPONSE_URL } as never, "2.1.1", recording);
    commandResponseType.down({ result: "REJECTED", timeout: 30, message: [{ language: "en", text: "x" }] }, "2.1.1", recording);
    commandResponseType.up({ result: "TIMEOUT" }, "2.1.1", recording);
    commandResultType.down({ result: "FAILED", message: [{ language: "en", text: "x" }] }, "2.1.1", recording);
    commandResultType.up({ result: "UNKNOWN_SESSION" }, "2.1.1", recording);
    const listed = new Set(COMMANDS_TRANSLATION_LOSSES.map((l) => l.field));
    expect(new Set(dropped)).toEqual(listed);
  });
});
