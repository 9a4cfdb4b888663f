import "reflect-metadata";
import http from "node:http";
import pino from "pino";
import type { VersionNumber } from "../../config/types";
import type { PartyRef } from "../../core/protocol/types";
import type { CommandType } from "../../plugins/commands/model";
import { COMMAND_TYPES } from "../../plugins/commands/model";
import { COMMAND_RESULTS, type ReceivedCommandResults } from "../../adapters/local/commands";
import { Gateway } from "../../app/gateway";
import { redisStore, removeTempDirs, testGatewayConfig, versionsUrlOf, type PartySpec } from "../support/gateway-config";
import { freePorts, ocpiRequest, startGatewayProcess, writeGatewayConfig, type GatewayProcess } from "../support/gateway-process";
import { ADMIN_TOKEN, COMMAND_BODIES, adminApi, eventually, seedFile, sleep } from "../support/charge-point";

/**
 * Issue #4, commands end to end: CPO gateways with the `local` adapter's
 * simulated charge point and an eMSP gateway on loopback, each with its own
 * store. The eMSP's backend issues commands through the admin API; the
 * results travel CPO outbox -> eMSP response_url -> eMSP adapter.
 */

type Json = Record<string, any>;

const EMSP: PartySpec = { country_code: "DE", party_id: "EMS", role: "EMSP" };
const cpoParty = (n: number): PartySpec => ({ country_code: "NL", party_id: `CP${n}`, role: "CPO" });
const refOf = (p: PartySpec): PartyRef => ({ country_code: p.country_code, party_id: p.party_id });
const quiet = () => pino({ level: "silent" });

/** The result of a command, once the eMSP's gateway has one (and handed it to the adapter). */
const finished = async (emspUrl: string, uid: string, timeoutMs = 10_000): Promise<Json> =>
  eventually(async () => {
    const { body } = await adminApi(emspUrl).get(`/commands/${uid}`);
    expect(body.data.state).toBe("done");
    return body.data;
  }, timeoutMs);

/** What the eMSP's `local` adapter (its backend) received for a command. */
const inbox = async (emsp: Gateway, uid: string) => (await emsp.store.get<ReceivedCommandResults>(COMMAND_RESULTS, uid))?.results ?? [];

const issue = async (emspUrl: string, partner: string, command: CommandType, body: Json = COMMAND_BODIES[command]) =>
  adminApi(emspUrl).post(`/commands/${partner}/${command}`, body);

describe("commands between an eMSP and CPOs whose charge points accept, reject or do not answer", () => {
  interface Cpo {
    id: string;
    party: PartySpec;
    version: VersionNumber;
    outcome: "ACCEPTED" | "REJECTED" | "NO_ANSWER";
    /** what the eMSP's backend gets */
    expected: string;
    gateway?: Gateway;
    url?: string;
  }
  const CPOS: Cpo[] = [
    { id: "cpo-accepts", party: cpoParty(1), version: "2.3.0", outcome: "ACCEPTED", expected: "ACCEPTED" },
    { id: "cpo-rejects", party: cpoParty(2), version: "2.2.1", outcome: "REJECTED", expected: "REJECTED" },
    { id: "cpo-silent", party: cpoParty(3), version: "2.3.0", outcome: "NO_ANSWER", expected: "TIMEOUT" },
    { id: "cpo-legacy", party: cpoParty(4), version: "2.1.1", outcome: "ACCEPTED", expected: "ACCEPTED" },
  ];
  const CPO_TIMEOUT_SECONDS = 1;
  let emsp: Gateway;
  let emspUrl: string;
  let refused: http.Server | undefined;

  beforeAll(async () => {
    const [emspPort, ...cpoPorts] = await freePorts(CPOS.length + 1);
    emspUrl = `http://127.0.0.1:${emspPort}`;
    for (const [i, cpo] of CPOS.entries()) {
      cpo.url = `http://127.0.0.1:${cpoPorts[i]}`;
      cpo.gateway = await Gateway.create(
        testGatewayConfig({
          port: cpoPorts[i],
          party: cpo.party,
          modules: { commands: { adapter: "local" } },
          adapters: { local: { seed: seedFile(refOf(cpo.party)), simulator: { outcome: cpo.outcome, delay_ms: 100 } } },
          server: { command_timeout_seconds: CPO_TIMEOUT_SECONDS },
          partners: [{ id: "emsp", token_a: `token-a-${cpo.id}`, versions_url: versionsUrlOf(emspPort) }],
        }),
        { logger: quiet() },
      );
      await cpo.gateway.listen();
    }
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules: { commands: { adapter: "local" } },
        // The eMSP waits the CPO's timeout plus 3 s before it reports TIMEOUT itself: the CPO's own TIMEOUT comes first.
        server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: 3 },
        partners: CPOS.map((cpo, i) => ({
          id: cpo.id,
          token_a: `token-a-${cpo.id}`,
          versions_url: versionsUrlOf(cpoPorts[i]),
          versions: [cpo.version],
        })),
      }),
      { logger: quiet() },
    );
    await emsp.listen();
    for (const cpo of CPOS) expect(await emsp.credentials.register(cpo.id)).toMatchObject({ status: "registered", version: cpo.version });
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (refused ? refused.close(() => resolve()) : resolve()));
    await Promise.all([emsp?.close(), ...CPOS.map((c) => c.gateway?.close())]);
    removeTempDirs();
  });

  it("every command type reaches the eMSP's backend with exactly one result: the charge point's, or TIMEOUT", async () => {
    const issued: { cpo: Cpo; command: CommandType; uid: string }[] = [];
    for (const cpo of CPOS) {
      for (const command of COMMAND_TYPES) {
        if (command === "CANCEL_RESERVATION" && cpo.version === "2.1.1") continue;
        const { body } = await issue(emspUrl, cpo.id, command);
        expect(body).toMatchObject({ status_code: 1000, data: { response: { result: "ACCEPTED" } } });
        if (cpo.version !== "2.1.1") expect(body.data.response.timeout).toBe(CPO_TIMEOUT_SECONDS);
        issued.push({ cpo, command, uid: body.data.uid });
      }
    }
    expect(issued).toHaveLength(4 * 5 - 1);
    for (const { cpo, command, uid } of issued) {
      const state = await finished(emspUrl, uid);
      expect({ cpo: cpo.id, command, result: state.result.result, timed_out: state.timed_out }).toEqual({
        cpo: cpo.id,
        command,
        result: cpo.expected,
        timed_out: false,
      });
    }
    // Past every CPO's timeout: a TIMEOUT racing a reported outcome would have arrived by now.
    await sleep(CPO_TIMEOUT_SECONDS * 1000 + 1000);
    for (const { cpo, command, uid } of issued) {
      const { body } = await adminApi(emspUrl).get(`/commands/${uid}`);
      expect({ cpo: cpo.id, command, callbacks: body.data.callbacks }).toEqual({ cpo: cpo.id, command, callbacks: 1 });
      expect(await inbox(emsp, uid)).toEqual([expect.objectContaining({ result: cpo.expected })]);
    }
  }, 30_000);

  it("CANCEL_RESERVATION cannot be sent to a 2.1.1 CPO", async () => {
    const { body } = await issue(emspUrl, "cpo-legacy", "CANCEL_RESERVATION");
    expect(body.status_code).toBe(2001);
    expect(body.status_message).toContain("2.1.1");
  });

  it("an unknown location: the CPO's 2003 (with REJECTED) reaches the backend as 2003", async () => {
    const { body } = await issue(emspUrl, "cpo-accepts", "START_SESSION", { ...COMMAND_BODIES.START_SESSION, location_id: "NOWHERE" });
    expect(body.status_code).toBe(2003);
    expect(body.status_message).toContain("/receiver/commands/START_SESSION");
  });

  it("an EVSE that needs a connector_id: 2001 naming the field", async () => {
    const { body } = await issue(emspUrl, "cpo-accepts", "START_SESSION", { ...COMMAND_BODIES.START_SESSION, evse_uid: "EVSE2", connector_id: undefined });
    expect(body.status_code).toBe(2001);
    expect(body.status_message).toContain("/connector_id");
  });

  it("STOP_SESSION of an unknown session is answered UNKNOWN_SESSION, and the command is finished at once", async () => {
    const { body } = await issue(emspUrl, "cpo-accepts", "STOP_SESSION", { session_id: "NO-SUCH-SESSION" });
    expect(body.data.response.result).toBe("UNKNOWN_SESSION");
    const { body: state } = await adminApi(emspUrl).get(`/commands/${body.data.uid}`);
    expect(state.data).toMatchObject({ state: "done", callbacks: 0 });
    expect(state.data.result).toBeUndefined();
  });

  it("a result for an unknown command is 404; a repeat for a finished one is taken (1000) and counted; neither reaches the backend", async () => {
    const cpo = CPOS[0];
    const tokenToEmsp = (await cpo.gateway!.registry.get("emsp"))!.tokenToPartner!;
    const callback = (uid: string) =>
      ocpiRequest("POST", `${emspUrl}/ocpi/2.3.0/sender/commands/START_SESSION/${uid}`, { token: tokenToEmsp, body: { result: "ACCEPTED" } });
    const unknown = await callback("00000000-0000-0000-0000-000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body.status_code).toBe(2001);

    const { body } = await issue(emspUrl, cpo.id, "START_SESSION");
    await finished(emspUrl, body.data.uid);
    const again = await callback(body.data.uid);
    expect(again.status).toBe(200);
    expect(again.body.status_code).toBe(1000);
    expect(await inbox(emsp, body.data.uid)).toHaveLength(1);
    expect((await adminApi(emspUrl).get(`/commands/${body.data.uid}`)).body.data).toMatchObject({ callbacks: 2, result: { result: "ACCEPTED" } });
    // and another partner's command is unknown to this one
    const other = await issue(emspUrl, "cpo-silent", "START_SESSION");
    expect((await callback(other.body.data.uid)).status).toBe(404);
  });

  it("a response_url on a host the partner may not use is refused with 2001, and nothing leaves the CPO", async () => {
    const hits: string[] = [];
    refused = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end();
    });
    // 127.0.0.2 is loopback too, but not the host of the eMSP's versions URL (127.0.0.1)
    await new Promise<void>((resolve) => refused!.listen(0, "127.0.0.2", () => resolve()));
    const port = (refused.address() as { port: number }).port;
    const cpo = CPOS[0];
    const tokenToCpo = (await emsp.registry.get(cpo.id))!.tokenToPartner!;
    const { body } = await ocpiRequest("POST", `${cpo.url}/ocpi/2.3.0/receiver/commands/UNLOCK_CONNECTOR`, {
      token: tokenToCpo,
      headers: { "OCPI-from-country-code": "DE", "OCPI-from-party-id": "EMS", "OCPI-to-country-code": "NL", "OCPI-to-party-id": "CP1" },
      body: { ...COMMAND_BODIES.UNLOCK_CONNECTOR, response_url: `http://127.0.0.2:${port}/callback` },
    });
    expect(body.status_code).toBe(2001);
    expect(body.status_message).toContain("response_url host 127.0.0.2 is not allowed");
    // Past the CPO's timeout, when a TIMEOUT would have been posted: nothing came, nothing is pending.
    await sleep(CPO_TIMEOUT_SECONDS * 1000 + 750);
    expect(hits).toEqual([]);
    const pending = await cpo.gateway!.store.range<Json>("async:commands.received", { offset: 0, limit: 1000 });
    expect(pending.items.filter((e) => e.data.responseUrl.includes("127.0.0.2"))).toEqual([]);
  });
});

describe("a CPO gateway process killed (SIGKILL) after accepting commands, before their outcome", () => {
  const CPO = cpoParty(5);
  const CPO_TIMEOUT_SECONDS = 5;
  let cpo: GatewayProcess;
  let emsp: Gateway;
  let emspUrl: string;

  beforeAll(async () => {
    const [cpoPort, emspPort] = await freePorts(2);
    emspUrl = `http://127.0.0.1:${emspPort}`;
    const written = writeGatewayConfig({
      port: cpoPort,
      party: CPO,
      modules: { commands: { adapter: "local" } },
      adapters: {
        local: {
          seed: seedFile(refOf(CPO)),
          simulator: { outcome: "ACCEPTED", delay_ms: 1500, overrides: { STOP_SESSION: { outcome: "NO_ANSWER" } } },
        },
      },
      server: { command_timeout_seconds: CPO_TIMEOUT_SECONDS },
      partners: [{ id: "emsp", token_a: "token-a-killed-cpo", versions_url: versionsUrlOf(emspPort) }],
    });
    cpo = await startGatewayProcess(written);
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules: { commands: { adapter: "local" } },
        // long enough that only the CPO can answer, even after its restart
        server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: 60 },
        partners: [{ id: "cpo", token_a: "token-a-killed-cpo", versions_url: versionsUrlOf(cpoPort) }],
      }),
      { logger: quiet() },
    );
    await emsp.listen();
    await emsp.credentials.register("cpo");
  }, 30_000);

  afterAll(async () => {
    await cpo?.stop();
    await emsp?.close();
    removeTempDirs();
  }, 20_000);

  it("the restarted CPO still delivers the charge point's outcome, and the TIMEOUT of the unanswered one", async () => {
    const start = await issue(emspUrl, "cpo", "START_SESSION");
    const stop = await issue(emspUrl, "cpo", "STOP_SESSION");
    for (const { body } of [start, stop]) expect(body.data.response.result).toBe("ACCEPTED");

    await cpo.kill();
    for (const { body } of [start, stop]) expect((await adminApi(emspUrl).get(`/commands/${body.data.uid}`)).body.data.state).toBe("pending");

    // the same config file, hence the same SQLite store
    cpo = await startGatewayProcess(cpo);
    const started = await finished(emspUrl, start.body.data.uid, 15_000);
    expect(started).toMatchObject({ result: { result: "ACCEPTED" }, timed_out: false, callbacks: 1 });
    const stopped = await finished(emspUrl, stop.body.data.uid, 15_000);
    // the CPO's TIMEOUT, not the eMSP giving up
    expect(stopped).toMatchObject({ result: { result: "TIMEOUT" }, timed_out: false, callbacks: 1 });
    expect(await inbox(emsp, start.body.data.uid)).toEqual([expect.objectContaining({ result: "ACCEPTED" })]);
    expect(await inbox(emsp, stop.body.data.uid)).toEqual([expect.objectContaining({ result: "TIMEOUT" })]);
  }, 40_000);
});

describe("two CPO gateway instances on one Redis", () => {
  const CPO = cpoParty(6);
  const CPO_TIMEOUT_SECONDS = 2;
  let a: Gateway;
  let b: Gateway;
  let emsp: Gateway;
  let urls: { a: string; b: string; emsp: string };

  beforeAll(async () => {
    const [portA, portB, emspPort] = await freePorts(3);
    urls = { a: `http://127.0.0.1:${portA}`, b: `http://127.0.0.1:${portB}`, emsp: `http://127.0.0.1:${emspPort}` };
    const store = redisStore();
    const seed = seedFile(refOf(CPO));
    const cpoConfig = (port: number) =>
      testGatewayConfig({
        port,
        party: CPO,
        store,
        modules: { commands: { adapter: "local" } },
        // the charge point is an HTTP backend here: it reports outcomes through the admin API
        adapters: { local: { seed, simulator: { outcome: "NO_ANSWER" } } },
        server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: CPO_TIMEOUT_SECONDS },
        partners: [{ id: "emsp", token_a: "token-a-redis-cpo", versions_url: versionsUrlOf(emspPort) }],
      });
    a = await Gateway.create(cpoConfig(portA), { logger: quiet() });
    b = await Gateway.create(cpoConfig(portB), { logger: quiet() });
    await a.listen();
    await b.listen();
    emsp = await Gateway.create(
      testGatewayConfig({
        port: emspPort,
        party: EMSP,
        modules: { commands: { adapter: "local" } },
        server: { admin_token: ADMIN_TOKEN, command_timeout_seconds: 10 },
        partners: [{ id: "cpo", token_a: "token-a-redis-cpo", versions_url: versionsUrlOf(portA) }],
      }),
      { logger: quiet() },
    );
    await emsp.listen();
    await emsp.credentials.register("cpo");
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), emsp?.close()]);
    removeTempDirs();
  });

  it("a command accepted by one instance, its outcome reported to both: one delivery, the first outcome's", async () => {
    const { body } = await issue(urls.emsp, "cpo", "START_SESSION");
    expect(body.data.response.result).toBe("ACCEPTED");
    // the endpoints the eMSP knows are instance A's
    const received = await a.store.range<Json>("async:commands.received", { offset: 0, limit: 100 });
    const pending = received.items.filter((e) => e.state === "pending");
    expect(pending).toHaveLength(1);
    const id = pending[0].id;

    const [onB, onA] = await Promise.all([
      adminApi(urls.b).post(`/command-outcomes/${id}`, { result: "ACCEPTED" }),
      adminApi(urls.a).post(`/command-outcomes/${id}`, { result: "EVSE_OCCUPIED" }),
    ]);
    const codes = [onB.body.status_code, onA.body.status_code];
    expect([...codes].sort()).toEqual([1000, 2001]);
    const winner = onB.body.status_code === 1000 ? "ACCEPTED" : "EVSE_OCCUPIED";

    const state = await finished(urls.emsp, body.data.uid);
    expect(state.result.result).toBe(winner);
    // past the CPO's timeout: neither instance posted a TIMEOUT as well
    await sleep(CPO_TIMEOUT_SECONDS * 1000 + 1000);
    expect((await adminApi(urls.emsp).get(`/commands/${body.data.uid}`)).body.data.callbacks).toBe(1);
    expect(await inbox(emsp, body.data.uid)).toEqual([expect.objectContaining({ result: winner })]);
  }, 20_000);
});
