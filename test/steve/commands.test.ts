import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RowDataPacket } from "mysql2/promise";
import { getJson, memoryKeyValue } from "../../adapters/steve/contracts";
import { SteveCommands, SteveRest, pendingStartKey, type PendingStart, type SteveCommand } from "../../adapters/steve/rest";
import { SteveTags, type UnknownTagPolicy } from "../../adapters/steve/tags";
import type { Token } from "../../plugins/tokens/model";
import { freePort } from "../support/redis-server";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import { ALPHA, BETA } from "../support/steve-seed";
import { captureLog, mappingSettings, REST_PASSWORD, REST_USER, steveEnv, type SteveEnv } from "./steve-env";

const EMSP = { country_code: "NL", party_id: "EMS" };
const OTHER_EMSP = { country_code: "BE", party_id: "XYZ" };
const token = (uid: string, extra: Partial<Token> = {}): Token => ({
  ...EMSP,
  uid,
  type: "RFID",
  contract_id: `NL-EMS-C${uid.slice(0, 8)}`,
  issuer: "EMS",
  valid: true,
  whitelist: "ALLOWED",
  last_updated: "2026-09-01T00:00:00Z",
  ...extra,
});

let maria: MariaDb;
let env: SteveEnv;

beforeAll(async () => {
  maria = await startMariaDb();
  env = await steveEnv(maria, "commands", "3.14");
}, 60_000);

afterAll(async () => {
  await env?.close();
  await maria?.stop();
});

function engine(options: { policy?: UnknownTagPolicy; answerWaitMs?: number; baseUrl?: string; timeoutMs?: number; askEmsp?: ConstructorParameters<typeof SteveTags>[0]["askEmsp"] } = {}) {
  const log = captureLog();
  const kv = memoryKeyValue();
  const rest = new SteveRest({ base_url: options.baseUrl ?? env.fake.baseUrl, user: REST_USER, password: REST_PASSWORD, timeout_ms: options.timeoutMs ?? 10_000 });
  const tags = new SteveTags({ rest, kv, log, policy: options.policy ?? "deny", askEmsp: options.askEmsp });
  const commands = new SteveCommands({ rest, db: env.db, tags, kv, log, mapping: mappingSettings(), answerWaitMs: options.answerWaitMs ?? 1_000 });
  const submit = (type: SteveCommand["type"], request: Record<string, unknown>, sender = EMSP) => commands.submit({ type, request, sender });
  return { log, kv, rest, tags, commands, submit };
}

const start = (t: Token, evseUid = `${BETA.id}-1`, extra = {}) => ({ token: t, location_id: evseUid.split("-").slice(0, -1).join("-"), evse_uid: evseUid, ...extra });
const tagRow = async (idTag: string) =>
  ((await env.writer.query<RowDataPacket[]>("SELECT * FROM ocpp_tag WHERE id_tag = ?", [idTag]))[0] as RowDataPacket[])[0];

describe("START_SESSION and STOP_SESSION end to end through the fake SteVe", () => {
  test("accepted: the tag is provisioned, the station starts, then stops on request", async () => {
    const e = engine();
    await e.tags.push(EMSP, token("EMSP-0001"));
    const started = await e.submit("START_SESSION", start(token("EMSP-0001"), `${BETA.id}-1`, { authorization_reference: "AUTH-1" }));
    expect(started.answer).toEqual({ result: "ACCEPTED" });
    expect(await started.outcome).toEqual({ result: "ACCEPTED" });
    expect(env.fake.calls.at(-1)).toEqual({ operation: "RemoteStartTransaction", body: { chargeBoxIdList: [BETA.id], connectorId: 1, idTag: "EMSP-0001" } });
    expect(await getJson<PendingStart>(e.kv, pendingStartKey("EMSP-0001"))).toMatchObject({ chargeBoxId: BETA.id, authorization_reference: "AUTH-1" });

    await env.fake.idle();
    const [tx] = (await env.db.transactions({ active: true })).filter((t) => t.idTag === "EMSP-0001");
    expect(tx).toMatchObject({ chargeBoxId: BETA.id, evseId: 1 });

    const stopped = await e.submit("STOP_SESSION", { session_id: String(tx.transactionPk) });
    expect(stopped.answer.result).toBe("ACCEPTED");
    expect(await stopped.outcome).toEqual({ result: "ACCEPTED" });
    await env.fake.idle();
    expect((await env.db.transactions({ transactionPks: [tx.transactionPk] }))[0].stopReason).toBe("Remote");

    // Stopped now: nothing to stop, and SteVe is not asked.
    const calls = env.fake.calls.length;
    expect((await e.submit("STOP_SESSION", { session_id: String(tx.transactionPk) })).answer.result).toBe("UNKNOWN_SESSION");
    expect((await e.submit("STOP_SESSION", { session_id: "not-a-number" })).answer.result).toBe("UNKNOWN_SESSION");
    expect(env.fake.calls.length).toBe(calls);
  });

  test("a uid SteVe cannot take goes out as its alias", async () => {
    const e = engine({ policy: "allow" });
    const long = token("04A2B3C4D5E6F70819AABBCCDDEEFF");
    const started = await e.submit("START_SESSION", start(long));
    expect(await started.outcome).toEqual({ result: "ACCEPTED" });
    const idTag = env.fake.calls.at(-1)!.body.idTag as string;
    expect(idTag).toMatch(/^#[0-9a-f]{19}$/);
    expect(await e.tags.ownerOf(idTag)).toMatchObject({ owner: EMSP, uid: long.uid, type: "RFID" });
    await env.fake.idle();
    const [tx] = (await env.db.transactions({ active: true })).filter((t) => t.idTag === idTag);
    await (await e.submit("STOP_SESSION", { session_id: String(tx.transactionPk) })).outcome;
    await env.fake.idle();
  });

  test("refused before SteVe is called: unknown EVSE or location, unknown token under deny, invalid token", async () => {
    const e = engine({ policy: "deny" });
    const calls = env.fake.calls.length;
    expect((await e.submit("START_SESSION", start(token("NEVER-PUSHED")))).answer).toEqual({
      result: "REJECTED",
      message: [{ language: "en", text: "the token is unknown (unknown_tags: deny)" }],
    });
    await e.tags.push(EMSP, token("EMSP-0002", { valid: false }));
    expect((await e.submit("START_SESSION", start(token("EMSP-0002")))).answer.message?.[0].text).toBe("the token is not valid");
    expect((await e.submit("START_SESSION", start(token("EMSP-0001"), `${BETA.id}-7`))).answer.result).toBe("REJECTED");
    expect((await e.submit("START_SESSION", { ...start(token("EMSP-0001")), location_id: ALPHA.id })).answer.message?.[0].text).toBe("unknown EVSE");
    expect((await e.submit("START_SESSION", { token: token("EMSP-0001"), location_id: "NOPE" })).answer.message?.[0].text).toBe("unknown location");
    expect(env.fake.calls.length).toBe(calls);
  });

  test("ask_emsp: the eMSP's real-time authorization decides for a token nobody pushed", async () => {
    const asked: string[] = [];
    const e = engine({ policy: "ask_emsp", askEmsp: async (owner, t) => (asked.push(`${owner.party_id}:${t.uid}`), t.uid === "ASK-OK" ? "ALLOWED" : "NOT_ALLOWED") });
    expect((await e.submit("START_SESSION", start(token("ASK-NO")))).answer.message?.[0].text).toBe("the token's eMSP answered NOT_ALLOWED");
    env.fake.next("RemoteStartTransaction", { kind: "response", response: "Rejected" });
    const ok = await e.submit("START_SESSION", start(token("ASK-OK")));
    expect(ok.answer.result).toBe("ACCEPTED");
    expect(await ok.outcome).toEqual({ result: "REJECTED" });
    expect(asked).toEqual(["EMS:ASK-NO", "EMS:ASK-OK"]);
    expect(await tagRow("ASK-OK")).toMatchObject({ max_active_transaction_count: 1 });
  });
});

describe("what SteVe answers becomes the CommandResult", () => {
  const unlock = { location_id: ALPHA.id, evse_uid: `${ALPHA.id}-2`, connector_id: "1" };

  test("UNLOCK_CONNECTOR: Unlocked, UnlockFailed, NotSupported", async () => {
    const e = engine();
    expect(await (await e.submit("UNLOCK_CONNECTOR", unlock)).outcome).toEqual({ result: "ACCEPTED" });
    expect(env.fake.calls.at(-1)!.body).toEqual({ chargeBoxIdList: [ALPHA.id], connectorId: 2 });
    env.fake.next("UnlockConnector", { kind: "response", response: "UnlockFailed" });
    expect((await (await e.submit("UNLOCK_CONNECTOR", unlock)).outcome)?.result).toBe("FAILED");
    env.fake.next("UnlockConnector", { kind: "response", response: "NotSupported" });
    expect((await (await e.submit("UNLOCK_CONNECTOR", unlock)).outcome)?.result).toBe("NOT_SUPPORTED");
  });

  test("taskFinished false → TIMEOUT; a CALLERROR → FAILED or NOT_SUPPORTED; an exception → FAILED", async () => {
    const e = engine();
    env.fake.next("UnlockConnector", { kind: "timeout" });
    const timedOut = await e.submit("UNLOCK_CONNECTOR", unlock);
    expect(timedOut.answer.result).toBe("ACCEPTED");
    expect(await timedOut.outcome).toEqual({ result: "TIMEOUT", message: [{ language: "en", text: "the charge point did not answer in time" }] });

    env.fake.next("UnlockConnector", { kind: "error", errorCode: "InternalError", errorDescription: "relay stuck" });
    expect(await (await e.submit("UNLOCK_CONNECTOR", unlock)).outcome).toEqual({
      result: "FAILED",
      message: [{ language: "en", text: "the charge point answered InternalError: relay stuck" }],
    });
    env.fake.next("UnlockConnector", { kind: "error", errorCode: "NotImplemented" });
    expect((await (await e.submit("UNLOCK_CONNECTOR", unlock)).outcome)?.result).toBe("NOT_SUPPORTED");

    env.fake.next("UnlockConnector", { kind: "exception", message: "The charge point 'CB-ALPHA' is not connected" });
    expect(await (await e.submit("UNLOCK_CONNECTOR", unlock)).outcome).toEqual({
      result: "FAILED",
      message: [{ language: "en", text: "the central system could not reach the charge point: The charge point 'CB-ALPHA' is not connected" }],
    });
  });

  test("an HTTP error: REJECTED while the answer waits, FAILED once the command was accepted", async () => {
    const e = engine();
    env.fake.next("UnlockConnector", { kind: "http", status: 500 });
    expect(await e.submit("UNLOCK_CONNECTOR", unlock)).toEqual({
      answer: { result: "REJECTED", message: [{ language: "en", text: "the central system refused the command" }] },
    });
    expect(e.log.lines.at(-1)).toMatchObject({ level: "warn", fields: { operation: "UnlockConnector", reason: expect.stringContaining("HTTP 500") } });

    // SteVe failing only after the answer window (its wait for the station ended in an internal error).
    const slow = http.createServer((_req, res) => setTimeout(() => res.writeHead(500, { "content-type": "application/json" }).end('{"status":500}'), 100));
    await new Promise<void>((r) => slow.listen(0, "127.0.0.1", r));
    try {
      const late = engine({ baseUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/steve`, answerWaitMs: 20 });
      const accepted = await late.submit("UNLOCK_CONNECTOR", unlock);
      expect(accepted.answer.result).toBe("ACCEPTED");
      expect(await accepted.outcome).toEqual({ result: "FAILED", message: [{ language: "en", text: "the central system answered HTTP 500" }] });
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });

  test("wrong API password: REJECTED, and the password is in no log line", async () => {
    const e = engine();
    const wrong = new SteveRest({ base_url: env.fake.baseUrl, user: REST_USER, password: "wrong-password-123", timeout_ms: 5_000 });
    (e.commands as unknown as { o: { rest: SteveRest } }).o.rest = wrong;
    expect((await e.submit("UNLOCK_CONNECTOR", unlock)).answer.result).toBe("REJECTED");
    expect(e.log.text()).toContain("HTTP 401");
    expect(e.log.text()).not.toContain("wrong-password-123");
  });

  test("REST down: REJECTED with the reason logged (no credentials)", async () => {
    const port = await freePort();
    const down = engine({ baseUrl: `http://127.0.0.1:${port}/steve`, policy: "allow" });
    const answer = await down.submit("UNLOCK_CONNECTOR", unlock);
    expect(answer).toEqual({ answer: { result: "REJECTED", message: [{ language: "en", text: "the central system is not reachable" }] } });
    // START_SESSION provisions its tag first: refused by that call already.
    expect((await down.submit("START_SESSION", start(token("DOWN-1")))).answer.result).toBe("REJECTED");
    expect(down.log.lines.map((l) => l.fields.reason)).toEqual([
      `POST http://127.0.0.1:${port}/steve/api/v1/operations/UnlockConnector: ECONNREFUSED`,
      `GET http://127.0.0.1:${port}/steve/api/v1/ocppTags: ECONNREFUSED`,
    ]);
    expect(down.log.text()).not.toContain(REST_PASSWORD);
    expect(down.log.text()).not.toContain(Buffer.from(`${REST_USER}:${REST_PASSWORD}`).toString("base64"));

  });

  test("SteVe going away while the station is asked: accepted, then FAILED", async () => {
    // Takes the call, then drops the connection: what a SteVe restart looks like from here.
    const dying = http.createServer((req) => setTimeout(() => req.socket.destroy(), 100));
    await new Promise<void>((r) => dying.listen(0, "127.0.0.1", r));
    try {
      const e = engine({ baseUrl: `http://127.0.0.1:${(dying.address() as AddressInfo).port}/steve`, answerWaitMs: 20 });
      const accepted = await e.submit("UNLOCK_CONNECTOR", unlock);
      expect(accepted.answer.result).toBe("ACCEPTED");
      expect(await accepted.outcome).toEqual({ result: "FAILED", message: [{ language: "en", text: "the central system is unreachable" }] });
      expect(e.log.lines.at(-1)).toMatchObject({ level: "warn", message: "steve: command failed after it was accepted" });
    } finally {
      dying.closeAllConnections();
      await new Promise((r) => dying.close(r));
    }
  });

  test("SteVe that never answers: our timeout gives TIMEOUT", async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const e = engine({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/steve`, answerWaitMs: 50, timeoutMs: 300 });
      const submitted = await e.submit("UNLOCK_CONNECTOR", unlock);
      expect(submitted.answer.result).toBe("ACCEPTED");
      expect(await submitted.outcome).toEqual({ result: "TIMEOUT", message: [{ language: "en", text: "the central system did not answer in time" }] });
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});

describe("RESERVE_NOW and CANCEL_RESERVATION", () => {
  const expiry = () => new Date(Date.now() + 3_600_000).toISOString();

  test("reserved, mapped to SteVe's reservation, cancelled by its eMSP only", async () => {
    const e = engine({ policy: "allow" });
    const reserve = { token: token("RES-1"), location_id: ALPHA.id, evse_uid: `${ALPHA.id}-1`, reservation_id: "R-77", expiry_date: expiry() };
    const reserved = await e.submit("RESERVE_NOW", reserve);
    expect(reserved.answer.result).toBe("ACCEPTED");
    expect(await reserved.outcome).toEqual({ result: "ACCEPTED" });
    await env.fake.idle();
    const [row] = (await env.db.reservations()).filter((r) => r.idTag === "RES-1");
    expect(row).toMatchObject({ chargeBoxId: ALPHA.id, evseId: 1, status: "ACCEPTED" });

    // Another eMSP's reservation id space is its own.
    expect(await (await e.submit("CANCEL_RESERVATION", { reservation_id: "R-77" }, OTHER_EMSP)).outcome).toEqual({ result: "UNKNOWN_RESERVATION" });
    const cancelled = await e.submit("CANCEL_RESERVATION", { reservation_id: "R-77" });
    expect(await cancelled.outcome).toEqual({ result: "ACCEPTED" });
    expect(env.fake.calls.at(-1)).toEqual({ operation: "CancelReservation", body: { chargeBoxIdList: [ALPHA.id], reservationId: row.reservationPk } });
    await env.fake.idle();
    expect((await env.db.reservations()).find((r) => r.reservationPk === row.reservationPk)?.status).toBe("CANCELLED");
    expect(await (await e.submit("CANCEL_RESERVATION", { reservation_id: "R-77" })).outcome).toEqual({ result: "UNKNOWN_RESERVATION" });
  });

  test("the station refuses: EVSE_OCCUPIED, EVSE_INOPERATIVE", async () => {
    const e = engine({ policy: "allow" });
    const reserve = { token: token("RES-2"), location_id: ALPHA.id, evse_uid: `${ALPHA.id}-2`, reservation_id: "R-78", expiry_date: expiry() };
    env.fake.next("ReserveNow", { kind: "response", response: "Occupied" });
    expect((await (await e.submit("RESERVE_NOW", reserve)).outcome)?.result).toBe("EVSE_OCCUPIED");
    env.fake.next("ReserveNow", { kind: "response", response: "Faulted" });
    expect((await (await e.submit("RESERVE_NOW", reserve)).outcome)?.result).toBe("EVSE_INOPERATIVE");
    expect(await (await e.submit("CANCEL_RESERVATION", { reservation_id: "R-78" })).outcome).toEqual({ result: "UNKNOWN_RESERVATION" });
  });
});
