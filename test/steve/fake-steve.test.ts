import type { Pool } from "mysql2/promise";
import { SteveDb } from "../../adapters/steve/db/steve-db";
import { mapSession } from "../../adapters/steve/mapping/sessions";
import { DEFAULT_EVSE_ID_PATTERN, type SteveMappingSettings } from "../../adapters/steve/mapping/settings";
import { sessionType } from "../../plugins/sessions/translate";
import { startFakeSteve, type FakeSteve } from "../support/fake-steve";
import { startMariaDb, type MariaDb } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { ALPHA, BETA, createSteveSchema, seedSteve, TAGS, writerPool } from "../support/steve-seed";

const USER = "gateway";
const PASSWORD = "api-secret";
const AUTH = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}` };

let maria: MariaDb;
const env = {} as Record<SteveGeneration, { writer: Pool; db: SteveDb; fake: FakeSteve }>;

beforeAll(async () => {
  maria = await startMariaDb();
  for (const generation of ["3.14", "3.12"] as const) {
    const access = await maria.createDatabase(`fake_${generation.replace(".", "")}`);
    const writer = writerPool(access.writer);
    await createSteveSchema(writer, generation);
    await seedSteve(writer, generation);
    const fake = await startFakeSteve({ writer, topology: generation === "3.14" ? "evse" : "connector", user: USER, password: PASSWORD });
    env[generation] = { writer, fake, db: await SteveDb.open(access.reader) };
  }
}, 60_000);

afterAll(async () => {
  for (const e of Object.values(env)) {
    await e.fake.close();
    await e.db.close();
    await e.writer.end();
  }
  await maria?.stop();
});

const call = async (fake: FakeSteve, method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) => {
  const res = await fetch(`${fake.baseUrl}/api/v1/${path}`, {
    method,
    headers: { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};
const operation = (fake: FakeSteve, name: string, body: unknown) => call(fake, "POST", `operations/${name}`, body);
const success = (chargeBoxId: string, response: string) => ({
  taskId: expect.any(Number),
  taskFinished: true,
  successResponses: [{ chargeBoxId, response }],
  errorResponses: [],
  exceptions: [],
});

describe.each(["3.14", "3.12"] as const)("fake SteVe on the %s schema", (generation) => {
  const fake = () => env[generation].fake;
  const db = () => env[generation].db;

  test("a remote start, meter samples and a remote stop write the rows a station would", async () => {
    const before = new Date(Date.now() - 1);
    const started = await operation(fake(), "RemoteStartTransaction", { chargeBoxIdList: [BETA.id], connectorId: 1, idTag: `NEW-${generation}` });
    expect(started).toMatchObject({ status: 200, body: success(BETA.id, "Accepted") });
    await fake().idle();

    const [tx] = (await db().transactions({ active: true })).filter((t) => t.chargeBoxId === BETA.id);
    expect(tx).toMatchObject({ evseId: 1, idTag: `NEW-${generation}`, startValue: "0", stopTimestamp: null, kwh: 0 });
    expect(tx.startEventTimestamp.getTime()).toBeGreaterThan(before.getTime());
    // SteVe inserts the unknown idTag so its foreign key holds.
    expect((await db().ocppTags([`NEW-${generation}`])).map((t) => t.activeTransactionCount)).toEqual([1]);
    expect((await db().statusesSince(before)).map((s) => [s.chargeBoxId, s.evseId, s.status])).toEqual([
      [BETA.id, 1, "Preparing"],
      [BETA.id, 1, "Charging"],
    ]);

    await fake().meter(tx.transactionPk, 1500);
    await fake().meter(tx.transactionPk, 2250);
    const [running] = await db().transactions({ transactionPks: [tx.transactionPk] });
    expect(running.kwh).toBe(3.75);
    expect(running.meterValues.map((v) => [v.readingContext, v.value])).toEqual([
      ["Transaction.Begin", "0"],
      ["Sample.Periodic", "1500"],
      ["Sample.Periodic", "3750"],
    ]);

    const stopped = await operation(fake(), "RemoteStopTransaction", { chargeBoxIdList: [BETA.id], transactionId: tx.transactionPk });
    expect(stopped).toMatchObject({ status: 200, body: success(BETA.id, "Accepted") });
    await fake().idle();
    const [finished] = await db().finishedTransactionsSince(before);
    expect(finished).toMatchObject({ transactionPk: tx.transactionPk, stopValue: "3750", stopReason: "Remote", stopEventActor: "station", kwh: 3.75 });
    const statuses = await db().currentStatuses(new Date(), [BETA.id]);
    expect(statuses.map((s) => s.latest?.status)).toEqual(["Available"]);

    const settings = {
      country_code: "DE", party_id: "ABC", currency: "EUR", publish: true, time_zone: "Europe/Berlin", evse_id_pattern: DEFAULT_EVSE_ID_PATTERN,
      capabilities: [], locations: [], charge_boxes: {}, status: { preparing: "AVAILABLE", finishing: "CHARGING" },
      connector_defaults: { standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16 },
    } satisfies SteveMappingSettings;
    const session = mapSession({ tx: finished, chargeBox: undefined, evse: undefined }, settings);
    expect(sessionType.schema("2.3.0", "full").safeParse(session).error?.issues ?? []).toEqual([]);
    expect(session).toMatchObject({ id: String(tx.transactionPk), status: "COMPLETED", kwh: 3.75, location_id: BETA.id, evse_uid: `${BETA.id}-1` });

    // Stopping it again: the station no longer knows the transaction.
    const again = await operation(fake(), "RemoteStopTransaction", { chargeBoxIdList: [BETA.id], transactionId: tx.transactionPk });
    expect(again.body).toEqual(success(BETA.id, "Rejected"));
    await fake().idle();
    expect(await db().finishedTransactionsSince(finished.stopEventTimestamp!)).toEqual([]);
  });

  test("a reservation is booked, accepted and cancelled as SteVe records it", async () => {
    const before = new Date(Date.now() - 1);
    const expiry = new Date(Date.now() + 3_600_000).toISOString();
    const reserved = await operation(fake(), "ReserveNow", { chargeBoxIdList: [ALPHA.id], connectorId: 1, expiry, idTag: TAGS.carol });
    expect(reserved.body).toEqual(success(ALPHA.id, "Accepted"));
    await fake().idle();
    const [reservation] = await db().reservations(before);
    expect(reservation).toMatchObject({ chargeBoxId: ALPHA.id, evseId: 1, idTag: TAGS.carol, status: "ACCEPTED", expiryDatetime: new Date(expiry) });
    expect((await db().statusesSince(before)).map((s) => [s.evseId, s.status])).toEqual([[1, "Reserved"]]);

    const cancelled = await operation(fake(), "CancelReservation", { chargeBoxIdList: [ALPHA.id], reservationId: reservation.reservationPk });
    expect(cancelled.body).toEqual(success(ALPHA.id, "Accepted"));
    await fake().idle();
    expect((await db().reservations(before)).map((r) => r.status)).toEqual(["CANCELLED"]);

    // Refused by the station: SteVe drops the booking.
    fake().next("ReserveNow", { kind: "response", response: "Occupied" });
    const refused = await operation(fake(), "ReserveNow", { chargeBoxIdList: [ALPHA.id], connectorId: 2, expiry, idTag: TAGS.carol });
    expect(refused.body).toEqual(success(ALPHA.id, "Occupied"));
    await fake().idle();
    expect((await db().reservations(before)).map((r) => r.reservationPk)).toEqual([reservation.reservationPk]);
  });
});

describe("fake SteVe answers like SteVe", () => {
  const fake = () => env["3.14"].fake;
  const db = () => env["3.14"].db;

  test("HTTP Basic auth with the API password", async () => {
    const none = await call(fake(), "POST", "operations/UnlockConnector", { chargeBoxIdList: [ALPHA.id], connectorId: 1 }, {});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Basic realm="SteVe"');
    expect(none.body).toMatchObject({ status: 401, error: "Unauthorized" });
    const wrong = { authorization: `Basic ${Buffer.from(`${USER}:nope`).toString("base64")}` };
    expect((await call(fake(), "GET", "ocppTags", undefined, wrong)).status).toBe(401);
  });

  test("unlock, a station that does not answer in time, a CALLERROR, an exception, SteVe failing", async () => {
    const unlock = { chargeBoxIdList: [ALPHA.id], connectorId: 1 };
    expect((await operation(fake(), "UnlockConnector", unlock)).body).toEqual(success(ALPHA.id, "Unlocked"));
    fake().next("UnlockConnector", { kind: "response", response: "UnlockFailed" });
    expect((await operation(fake(), "UnlockConnector", unlock)).body).toEqual(success(ALPHA.id, "UnlockFailed"));

    const transactions = (await db().transactions()).length;
    fake().next("RemoteStartTransaction", { kind: "timeout" });
    const timedOut = await operation(fake(), "RemoteStartTransaction", { chargeBoxIdList: [ALPHA.id], connectorId: 2, idTag: TAGS.alice });
    expect(timedOut.body).toEqual({ taskId: expect.any(Number), taskFinished: false, successResponses: [], errorResponses: [], exceptions: [] });

    fake().next("RemoteStartTransaction", { kind: "error", errorCode: "InternalError", errorDescription: "relay stuck" });
    const failed = await operation(fake(), "RemoteStartTransaction", { chargeBoxIdList: [ALPHA.id], connectorId: 2, idTag: TAGS.alice });
    expect(failed.body).toEqual({
      taskId: expect.any(Number),
      taskFinished: true,
      successResponses: [],
      errorResponses: [{ chargeBoxId: ALPHA.id, errorCode: "InternalError", errorDescription: "relay stuck", errorDetails: null }],
      exceptions: [],
    });

    const unknown = await operation(fake(), "RemoteStartTransaction", { chargeBoxIdList: ["CB-NOPE"], idTag: TAGS.alice });
    expect(unknown.body).toEqual({
      taskId: expect.any(Number),
      taskFinished: true,
      successResponses: [],
      errorResponses: [],
      exceptions: [{ chargeBoxId: "CB-NOPE", exceptionMessage: "The charge point 'CB-NOPE' is not connected" }],
    });

    fake().next("RemoteStopTransaction", { kind: "http", status: 500 });
    const broken = await operation(fake(), "RemoteStopTransaction", { chargeBoxIdList: [ALPHA.id], transactionId: 1 });
    expect(broken).toMatchObject({ status: 500, body: { status: 500, error: "Internal Server Error" } });

    await fake().idle();
    // None of these reached a station that acted: nothing was written.
    expect((await db().transactions()).length).toBe(transactions);
  });

  test("request validation of the operation parameters answers 400", async () => {
    const two = await operation(fake(), "RemoteStartTransaction", { chargeBoxIdList: [ALPHA.id, BETA.id], idTag: TAGS.alice });
    expect(two).toMatchObject({ status: 400, body: { status: 400, error: "Bad Request", message: "chargeBoxIdList: exactly one charge box is required" } });
    expect((await operation(fake(), "UnlockConnector", { chargeBoxIdList: [ALPHA.id], connectorId: 0 })).status).toBe(400);
    expect((await operation(fake(), "ReserveNow", { chargeBoxIdList: [ALPHA.id], connectorId: 1, idTag: TAGS.alice, expiry: "2000-01-01T00:00:00Z" })).status).toBe(400);
    expect((await operation(fake(), "CancelReservation", { chargeBoxIdList: [ALPHA.id] })).status).toBe(400);
    expect((await call(fake(), "POST", "operations/Reset", { chargeBoxIdList: [ALPHA.id] })).status).toBe(404);
  });

  test("ocppTags: create, read, update, expire and delete go to ocpp_tag", async () => {
    const created = await call(fake(), "POST", "ocppTags", { idTag: "EMSP:0042", parentIdTag: TAGS.parent, maxActiveTransactionCount: 1, note: "NL*EMS" });
    expect(created).toMatchObject({
      status: 201,
      body: { idTag: "EMSP:0042", parentIdTag: TAGS.parent, maxActiveTransactionCount: 1, note: "NL*EMS", inTransaction: false, blocked: false },
    });
    const pk = created.body.ocppTagPk as number;
    expect(await db().ocppTags(["EMSP:0042"])).toMatchObject([{ ocppTagPk: pk, parentIdTag: TAGS.parent, note: "NL*EMS" }]);

    expect((await call(fake(), "POST", "ocppTags", { idTag: "EMSP:0042" })).status).toBe(422);
    expect((await call(fake(), "POST", "ocppTags", { idTag: "X".repeat(21) })).status).toBe(400);
    expect((await call(fake(), "POST", "ocppTags", { idTag: "has space" })).status).toBe(400);

    expect((await call(fake(), "GET", "ocppTags?idTag=EMSP%3A0042")).body.map((t: any) => t.ocppTagPk)).toEqual([pk]);
    expect((await call(fake(), "GET", `ocppTags/${pk}`)).body.idTag).toBe("EMSP:0042");

    const blocked = await call(fake(), "PUT", `ocppTags/${pk}`, { maxActiveTransactionCount: 0, note: "blocked" });
    expect(blocked.body).toMatchObject({ idTag: "EMSP:0042", parentIdTag: null, maxActiveTransactionCount: 0, blocked: true });
    const expired = await call(fake(), "PATCH", `ocppTags/${pk}/expire`);
    expect(Date.parse(expired.body.expiryDate)).toBeLessThanOrEqual(Date.now());
    expect((await db().ocppTags(["EMSP:0042"]))[0].expiryDate).toEqual(new Date(expired.body.expiryDate));

    expect((await call(fake(), "DELETE", `ocppTags/${pk}`)).status).toBe(200);
    expect(await db().ocppTags(["EMSP:0042"])).toEqual([]);
    expect((await call(fake(), "GET", `ocppTags/${pk}`)).status).toBe(404);
  });
});

describe("a station holding a reservation (bookings, docs/steve.md)", () => {
  test("refuses another idTag's ReserveNow (Occupied) and RemoteStart (Rejected); a start with the reservation's idTag uses it", async () => {
    const access = await maria.createDatabase("fake_reserved");
    const writer = writerPool(access.writer);
    await createSteveSchema(writer, "3.14");
    await seedSteve(writer, "3.14");
    const fake = await startFakeSteve({ writer, topology: "evse", user: USER, password: PASSWORD });
    const db = await SteveDb.open(access.reader);
    try {
      const before = new Date(Date.now() - 1);
      const expiry = new Date(Date.now() + 3_600_000).toISOString();
      const reserve = (idTag: string) => operation(fake, "ReserveNow", { chargeBoxIdList: [BETA.id], connectorId: 1, expiry, idTag });
      expect((await reserve(TAGS.carol)).body).toEqual(success(BETA.id, "Accepted"));
      await fake.idle();
      expect((await reserve(TAGS.alice)).body).toEqual(success(BETA.id, "Occupied"));
      const start = (idTag: string) => operation(fake, "RemoteStartTransaction", { chargeBoxIdList: [BETA.id], connectorId: 1, idTag });
      expect((await start(TAGS.alice)).body).toEqual(success(BETA.id, "Rejected"));
      expect((await start(TAGS.carol)).body).toEqual(success(BETA.id, "Accepted"));
      await fake.idle();
      const [transaction] = (await db.transactions({ active: true })).filter((t) => t.chargeBoxId === BETA.id);
      expect(transaction.idTag).toBe(TAGS.carol);
      expect(await db.reservations(before)).toEqual([expect.objectContaining({ idTag: TAGS.carol, status: "USED", transactionPk: transaction.transactionPk })]);
    } finally {
      await fake.close();
      await db.close();
      await writer.end();
    }
  }, 30_000);
});
