import "reflect-metadata";
import fs from "node:fs";
import path from "node:path";
import pino from "pino";
import type { GatewayConfig, VersionNumber } from "../../config/types";
import type { PartyRef } from "../../core/protocol/types";
import { Gateway } from "../../app/gateway";
import { removeTempDirs, tempDir, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, type HttpResult } from "../support/gateway-process";
import { ADMIN_TOKEN, CONNECTOR_MAX_W, adminApi, eventually, location, session, sleep } from "../support/charge-point";
import { LOC1_EVSE1, cdrOf as plainCdr, stamp } from "../support/ocpi-objects";

/**
 * Issue #8 item 2: a CPO's Sessions and CDRs, and the commands and charging
 * profiles acting on them, belong to the owner of the token (Part B). One CPO
 * gateway and two eMSP gateways on loopback, registered through the real
 * credentials handshake: A with two parties (DE/AAA, DE/AAC: its lists are
 * filtered) and B with one (NL/BBB: its lists are a page of the token-owner
 * index). Each partner calls the CPO with its own token in every version the
 * route exists in. Whether the simulated charge point acted is seen in what
 * the CPO sends the partner afterwards (its outbox, GET /admin/v1/outbox: a
 * result for every request the charge point took) and, for charging
 * profiles, in the owner's active profile.
 */

type Json = Record<string, any>;

const CPO: PartySpec = { country_code: "NL", party_id: "CPO", role: "CPO" };
const CPO_REF: PartyRef = { country_code: "NL", party_id: "CPO" };
const A_PARTIES: PartySpec[] = [
  { country_code: "DE", party_id: "AAA", role: "EMSP" },
  { country_code: "DE", party_id: "AAC", role: "EMSP" },
];
const B_PARTY: PartySpec = { country_code: "NL", party_id: "BBB", role: "EMSP" };
const VERSIONS: VersionNumber[] = ["2.3.0", "2.2.1", "2.1.1"];
const MODULES = Object.fromEntries(["sessions", "cdrs", "commands", "chargingprofiles"].map((m) => [m, { adapter: "local" }]));
/** the simulated charge point reports after this long */
const SIMULATOR_DELAY_MS = 50;
const silent = { logger: pino({ level: "silent" }) };

const tokenOf = (owner: PartyRef, uid: string) => ({
  ...owner,
  uid,
  type: "RFID",
  contract_id: `${owner.country_code}-${owner.party_id}-C${uid}`,
  issuer: "eMSP",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: stamp(0),
});

const cdrTokenOf = (owner: PartyRef, uid: string) => ({ ...owner, uid, type: "RFID", contract_id: `${owner.country_code}-${owner.party_id}-C${uid}` });

const sessionOf = (id: string, tokenOwner: PartyRef, at: number): Json => ({
  ...session(CPO_REF, id),
  cdr_token: cdrTokenOf(tokenOwner, `U${id}`),
  last_updated: stamp(at),
});

const cdrOf = (id: string, tokenOwner: PartyRef, at: number): Json =>
  plainCdr({
    owner: CPO_REF,
    id,
    start: stamp(at),
    end: stamp(at + 60),
    lastUpdated: stamp(at + 61),
    kwh: 5,
    cost: 2,
    token: cdrTokenOf(tokenOwner, `U${id}`),
    place: { ...LOC1_EVSE1, postalCode: "3511 AA" },
  });

const [AAA, AAC] = A_PARTIES.map((p) => ({ country_code: p.country_code, party_id: p.party_id }));
const BBB: PartyRef = { country_code: B_PARTY.country_code, party_id: B_PARTY.party_id };

/** Seeded at the CPO: A's sessions under both its parties, B's one; CDRs the other way round. */
const SEEDED = {
  sessions: [sessionOf("SA1", AAA, 10), sessionOf("SB1", BBB, 11), sessionOf("SA2", AAC, 12)],
  cdrs: [cdrOf("CB1", BBB, 20), cdrOf("CA1", AAA, 21), cdrOf("CB2", BBB, 22)],
};

const PROFILE = { charging_rate_unit: "W", charging_profile_period: [{ start_period: 0, limit: 4000 }] };

describe("eMSPs see and act on only the sessions and CDRs of their own tokens", () => {
  let cpo: Gateway;
  let emspA: Gateway;
  let emspB: Gateway;
  let emspBConfig: GatewayConfig;
  const urls = { cpo: "", a: "", b: "" };
  /** each eMSP's token at the CPO, and the CPO's token at each eMSP */
  const tokens = { a: "", b: "", cpoAtA: "", cpoAtB: "" };
  let callbackId = 0;

  interface World {
    cpo: Gateway;
    emspA: Gateway;
    emspB: Gateway;
    emspBConfig: GatewayConfig;
    urls: typeof urls;
    tokens: typeof tokens;
  }
  /** the world the lists, commands and charging-profile tests read: only the SEEDED objects (the pushes describe adds others in its own) */
  let shared: World;
  const use = (world: World): void => {
    ({ cpo, emspA, emspB, emspBConfig } = world);
    Object.assign(urls, world.urls);
    Object.assign(tokens, world.tokens);
  };
  const closeCurrent = () => Promise.all([cpo?.close(), emspA?.close(), emspB?.close()]);

  /** A CPO on the local adapter seeded with SEEDED, and eMSPs A and B registered with it; made current. */
  const startWorld = async (): Promise<World> => {
    const [cpoPort, aPort, bPort] = await freePorts(3);
    urls.cpo = `http://127.0.0.1:${cpoPort}`;
    urls.a = `http://127.0.0.1:${aPort}`;
    urls.b = `http://127.0.0.1:${bPort}`;
    const seed = path.join(tempDir("ocpi-isolation-seed-"), "seed.json");
    fs.writeFileSync(seed, JSON.stringify({ locations: [location(CPO_REF)], ...SEEDED }));
    cpo = await Gateway.create(
      testGatewayConfig({
        port: cpoPort,
        party: CPO,
        modules: MODULES,
        adapters: { local: { seed, simulator: { outcome: "ACCEPTED", delay_ms: SIMULATOR_DELAY_MS } } },
        server: { admin_token: ADMIN_TOKEN },
        partners: [
          { id: "emsp-a", token_a: "isolation-token-a-A", versions_url: versionsUrlOf(aPort) },
          // B's backlog is dropped quickly: the resync test waits for it
          { id: "emsp-b", token_a: "isolation-token-a-B", versions_url: versionsUrlOf(bPort), push: { base_delay_ms: 20, max_delay_ms: 100, backlog_window_ms: 300 } },
        ],
      }),
      silent,
    );
    await cpo.listen();
    const emspConfig = (port: number, party: PartySpec | PartySpec[], tokenA: string, versions: VersionNumber[]) =>
      testGatewayConfig({
        port,
        party,
        modules: MODULES,
        server: { admin_token: ADMIN_TOKEN },
        partners: [{ id: "cpo", token_a: tokenA, versions_url: versionsUrlOf(cpoPort), versions }],
      });
    // A takes our pushes in 2.3.0, B in 2.2.1
    emspA = await Gateway.create(emspConfig(aPort, A_PARTIES, "isolation-token-a-A", ["2.3.0"]), silent);
    emspBConfig = emspConfig(bPort, B_PARTY, "isolation-token-a-B", ["2.2.1"]);
    emspB = await Gateway.create(emspBConfig, silent);
    await emspA.listen();
    await emspB.listen();
    expect(await emspA.credentials.register("cpo")).toMatchObject({ status: "registered", version: "2.3.0" });
    expect(await emspB.credentials.register("cpo")).toMatchObject({ status: "registered", version: "2.2.1" });
    tokens.a = (await emspA.registry.get("cpo"))!.tokenToPartner!;
    tokens.b = (await emspB.registry.get("cpo"))!.tokenToPartner!;
    tokens.cpoAtA = (await cpo.registry.get("emsp-a"))!.tokenToPartner!;
    tokens.cpoAtB = (await cpo.registry.get("emsp-b"))!.tokenToPartner!;
    return { cpo, emspA, emspB, emspBConfig, urls: { ...urls }, tokens: { ...tokens } };
  };

  beforeAll(async () => {
    shared = await startWorld();
  }, 30_000);

  afterAll(async () => {
    await closeCurrent();
    removeTempDirs();
  });

  /** A call to the CPO with a partner's token (raw in 2.1.1, Base64 from 2.2 on). */
  const call = (method: string, token: string, version: VersionNumber, route: string, body?: unknown): Promise<HttpResult> =>
    ocpiRequest(method, `${urls.cpo}/ocpi/${version}/${route}`, { token, encoding: version === "2.1.1" ? "raw" : "base64", body });

  /** A unique response_url on the calling eMSP's own gateway (the host and port of its versions URL, so always allowed). */
  const responseUrl = (emspUrl: string): string => `${emspUrl}/ocpi/2.3.0/sender/commands/results/${++callbackId}`;

  /**
   * Every message the CPO ever queued for a partner: results of requests its charge point took, and pushes
   * (the results go to response_urls the eMSP does not know, so they end refused, in the dead letters; `rejected`
   * counts those refusals again).
   */
  const sentTo = async (partner: string): Promise<number> => {
    const queue: Json | undefined = (await adminApi(urls.cpo).get("/outbox")).body.data.find((p: Json) => p.partner === partner);
    return ["queued", "delivered", "dropped", "dead_lettered"].reduce((sum, field) => sum + (queue?.[field] ?? 0), 0);
  };
  /** `partner` gets exactly `expected` messages from now on, and no more for a while after the charge point would have answered. */
  const expectSent = async (partner: string, before: number, expected: number): Promise<void> => {
    await eventually(async () => expect(await sentTo(partner)).toBe(before + expected));
    await sleep(SIMULATOR_DELAY_MS + 250);
    expect(await sentTo(partner)).toBe(before + expected);
  };

  const ids = (result: HttpResult): string[] => result.body.data.map((o: Json) => o.id);
  const list = (token: string, version: VersionNumber, module: string, query = "") =>
    call("GET", token, version, `sender/${module}?date_from=2020-01-01T00:00:00Z${query}`);

  describe.each(VERSIONS)("lists in %s", (version) => {
    it("each partner lists only the sessions of its own tokens, with their count", async () => {
      // the same list, asked with the same parameters by both: a cached answer must not cross over
      const a = await list(tokens.a, version, "sessions");
      const b = await list(tokens.b, version, "sessions");
      expect(a.body.status_code).toBe(1000);
      expect(ids(a)).toEqual(["SA1", "SA2"]);
      expect(a.headers["x-total-count"]).toBe("2");
      expect(ids(b)).toEqual(["SB1"]);
      expect(b.headers["x-total-count"]).toBe("1");
      expect(ids(await list(tokens.a, version, "sessions"))).toEqual(["SA1", "SA2"]);
    });

    it("each partner lists only the CDRs of its own tokens, paged by its own count", async () => {
      const b = await list(tokens.b, version, "cdrs", "&limit=1");
      expect(ids(b)).toEqual(["CB1"]);
      expect(b.headers["x-total-count"]).toBe("2");
      expect(b.headers.link).toContain("offset=1&limit=1");
      expect(ids(await list(tokens.b, version, "cdrs", "&offset=1&limit=1"))).toEqual(["CB2"]);
      const a = await list(tokens.a, version, "cdrs", "&limit=1");
      expect(ids(a)).toEqual(["CA1"]);
      expect(a.headers["x-total-count"]).toBe("1");
      expect(a.headers.link).toBeUndefined();
    });
  });

  describe.each(VERSIONS)("commands in %s", (version) => {
    /** sends a command with a response_url of its own; `url` is where the charge point's result would go */
    const command = async (token: string, emspUrl: string, type: string, body: Json) => {
      const url = responseUrl(emspUrl);
      const { body: answer } = await call("POST", token, version, `receiver/commands/${type}`, { ...body, response_url: url });
      return { answer, url };
    };
    const withoutMessage = (data: Json): Json => ({ ...data, message: undefined });

    it("STOP_SESSION of another eMSP's session is UNKNOWN_SESSION, like a session that does not exist, and the charge point is not asked", async () => {
      const before = { a: await sentTo("emsp-a"), b: await sentTo("emsp-b") };
      const foreign = await command(tokens.b, urls.b, "STOP_SESSION", { session_id: "SA1" });
      const missing = await command(tokens.b, urls.b, "STOP_SESSION", { session_id: "NO-SUCH" });
      expect(foreign.answer.status_code).toBe(1000);
      expect(foreign.answer.data.result).toBe("UNKNOWN_SESSION");
      expect(withoutMessage(foreign.answer.data)).toEqual(withoutMessage(missing.answer.data));
      const reverse = await command(tokens.a, urls.a, "STOP_SESSION", { session_id: "SB1" });
      expect(reverse.answer.data.result).toBe("UNKNOWN_SESSION");
      // the owner's STOP_SESSION reaches the charge point, whose one result is sent to A; B's and A's refused ones get none
      const own = await command(tokens.a, urls.a, "STOP_SESSION", { session_id: "SA1" });
      expect(own.answer.data.result).toBe("ACCEPTED");
      await expectSent("emsp-a", before.a, 1);
      await expectSent("emsp-b", before.b, 0);
    });

    // 2.1.1 tokens carry no owner: the sender's own party is taken, so another eMSP's token cannot be named.
    if (version === "2.1.1") return;

    it.each([
      ["START_SESSION", { location_id: "LOC1", evse_uid: "EVSE1", connector_id: "1" }],
      ["RESERVE_NOW", { expiry_date: "2030-01-01T00:00:00Z", reservation_id: "R1", location_id: "LOC1", evse_uid: "EVSE1" }],
    ])("%s with another eMSP's token is REJECTED and the charge point is not asked", async (type, target) => {
      const before = await sentTo("emsp-a");
      const refused = await command(tokens.a, urls.a, type, { ...target, token: tokenOf(BBB, "B1") });
      expect(refused.answer.status_code).toBe(1000);
      expect(refused.answer.data).toMatchObject({ result: "REJECTED", message: [{ text: expect.stringContaining("NL/BBB") }] });
      // A's token under its second party is its own
      const own = await command(tokens.a, urls.a, type, { ...target, token: tokenOf(AAC, "A2") });
      expect(own.answer.data.result).toBe("ACCEPTED");
      // one result: the accepted command's
      await expectSent("emsp-a", before, 1);
    });
  });

  describe.each(["2.3.0", "2.2.1"] as const)("charging profiles and preferences in %s", (version) => {
    const profiles = (token: string, method: string, sessionId: string, url: string) =>
      method === "PUT"
        ? call("PUT", token, version, `receiver/chargingprofiles/${sessionId}`, { charging_profile: PROFILE, response_url: url })
        : call(method, token, version, `receiver/chargingprofiles/${sessionId}?response_url=${encodeURIComponent(url)}${method === "GET" ? "&duration=900" : ""}`);

    it.each(["PUT", "GET", "DELETE"])("%s on another eMSP's session is UNKNOWN_SESSION and nothing is executed", async (method) => {
      const before = await sentTo("emsp-b");
      const foreign = await profiles(tokens.b, method, "SA1", responseUrl(urls.b));
      const missing = await profiles(tokens.b, method, "NO-SUCH", responseUrl(urls.b));
      expect(foreign.body.status_code).toBe(1000);
      expect(foreign.body.data.result).toBe("UNKNOWN_SESSION");
      expect(foreign.body.data).toEqual(missing.body.data);
      await expectSent("emsp-b", before, 0);
    });

    it("the owner's active profile is untouched by the other eMSP's PUT", async () => {
      expect((await profiles(tokens.b, "PUT", "SA2", responseUrl(urls.b))).body.data.result).toBe("UNKNOWN_SESSION");
      // A's backend asks for SA2's active profile through A's gateway (in 2.3.0)
      const { body } = await adminApi(urls.a).post("/chargingprofiles/cpo/SA2/active", { duration: 900 });
      expect(body.data.response.result).toBe("ACCEPTED");
      const state = await eventually(async () => {
        const { body: request } = await adminApi(urls.a).get(`/chargingprofiles/requests/${body.data.uid}`);
        expect(request.data.state).toBe("done");
        return request.data;
      });
      // no profile was ever set on SA2: the simulated charge point reports the connector's maximum, not B's 4000 W
      expect(state.result.profile.charging_profile.charging_profile_period).toEqual([{ start_period: 0, limit: CONNECTOR_MAX_W }]);
    });

    it("charging preferences on another eMSP's session: 404 like an unknown session", async () => {
      const prefs = { profile_type: "FAST" };
      const foreign = await call("PUT", tokens.b, version, "sender/sessions/SA1/charging_preferences", prefs);
      const missing = await call("PUT", tokens.b, version, "sender/sessions/NO-SUCH/charging_preferences", prefs);
      expect(foreign.status).toBe(404);
      expect(foreign.body.status_code).toBe(2001);
      expect(foreign.body.status_message).toBe(missing.body.status_message.replace("NO-SUCH", "SA1"));
      const own = await call("PUT", tokens.a, version, "sender/sessions/SA1/charging_preferences", prefs);
      expect(own.body).toMatchObject({ status_code: 1000, data: "ACCEPTED" });
    });
  });

  // the pushes add sessions and CDRs the lists must not see: each test gets a world of its own
  describe("pushes", () => {
    beforeEach(async () => {
      use(await startWorld());
    }, 30_000);
    afterEach(async () => {
      await closeCurrent();
      use(shared);
    });

    const postEvent = async (event: Json): Promise<void> => {
      const { body } = await adminApi(urls.cpo).post("/events", event);
      expect(body.status_code).toBe(1000);
    };
    const held = async (emspUrl: string, token: string, version: VersionNumber, route: string): Promise<Json | undefined> => {
      const result = await ocpiRequest("GET", `${emspUrl}/ocpi/${version}/receiver/${route}`, { token });
      return result.status === 404 ? undefined : result.body.data;
    };

    it("a session, its PATCH and a CDR reach only the partner of the token's owner", async () => {
      const before = { a: await sentTo("emsp-a"), b: await sentTo("emsp-b") };
      await postEvent({ module: "sessions", owner: CPO_REF, path: ["SA3"], kind: "upsert", object: sessionOf("SA3", AAC, 30) });
      await postEvent({ module: "sessions", owner: CPO_REF, path: ["SA3"], kind: "patch", object: { kwh: 7.5, last_updated: stamp(31) } });
      await postEvent({ module: "cdrs", owner: CPO_REF, path: ["CA2"], kind: "upsert", object: cdrOf("CA2", AAA, 40) });
      await postEvent({ module: "cdrs", owner: CPO_REF, path: ["CB3"], kind: "upsert", object: cdrOf("CB3", BBB, 41) });
      await eventually(async () => {
        expect(await held(urls.a, tokens.cpoAtA, "2.3.0", "sessions/NL/CPO/SA3")).toMatchObject({ kwh: 7.5 });
        expect(await held(urls.a, tokens.cpoAtA, "2.3.0", "cdrs/NL/CPO/CA2")).toMatchObject({ id: "CA2" });
        expect(await held(urls.b, tokens.cpoAtB, "2.2.1", "cdrs/NL/CPO/CB3")).toMatchObject({ id: "CB3" });
      });
      // A: the session's PUT and PATCH and its CDR; B: its CDR only
      await expectSent("emsp-a", before.a, 3);
      await expectSent("emsp-b", before.b, 1);
      expect(await held(urls.b, tokens.cpoAtB, "2.2.1", "sessions/NL/CPO/SA3")).toBeUndefined();
      expect(await held(urls.b, tokens.cpoAtB, "2.2.1", "cdrs/NL/CPO/CA2")).toBeUndefined();
      expect(await held(urls.a, tokens.cpoAtA, "2.3.0", "cdrs/NL/CPO/CB3")).toBeUndefined();
    });

    it("a full resync after a long outage sends the partner every session of its own tokens and no other", async () => {
      await emspB.close();
      await postEvent({ module: "sessions", owner: CPO_REF, path: ["SB2"], kind: "upsert", object: sessionOf("SB2", BBB, 50) });
      await postEvent({ module: "sessions", owner: CPO_REF, path: ["SB2"], kind: "upsert", object: sessionOf("SB2", BBB, 51) });
      await postEvent({ module: "sessions", owner: CPO_REF, path: ["SA4"], kind: "upsert", object: sessionOf("SA4", AAA, 52) });
      const queueOfB = async (): Promise<Json> => (await adminApi(urls.cpo).get("/outbox")).body.data.find((p: Json) => p.partner === "emsp-b");
      await eventually(async () => expect(await queueOfB()).toMatchObject({ resync_pending: true, queued: 1 }));
      emspB = await Gateway.create(emspBConfig, silent);
      await emspB.listen();
      await eventually(async () => expect(await queueOfB()).toMatchObject({ resync_pending: false, queued: 0 }), 15_000);
      // SB1 was seeded, never pushed: it came with the resync, which read the sessions list in B's scope
      expect(await held(urls.b, tokens.cpoAtB, "2.2.1", "sessions/NL/CPO/SB1")).toMatchObject({ id: "SB1" });
      expect(await held(urls.b, tokens.cpoAtB, "2.2.1", "sessions/NL/CPO/SB2")).toMatchObject({ id: "SB2", last_updated: stamp(51) });
      for (const id of ["SA1", "SA2", "SA3", "SA4"]) expect(await held(urls.b, tokens.cpoAtB, "2.2.1", `sessions/NL/CPO/${id}`)).toBeUndefined();
    }, 30_000);
  });
});
