import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import { stationReservations } from "./fake-steve-reservations";

/**
 * A fake SteVe (≥3.11) REST API on loopback for the steve adapter's tests
 * (docs/steve.md, "REST operations called"): HTTP Basic auth, the operations the
 * adapter calls, answered in SteVe's OcppOperationResponse shape, and the
 * ocppTags resource. It "plays the station" by writing, through the
 * writer pool, the rows SteVe would write once the station acts
 * (transaction_start/stop, meter values, status rows, reservations), so
 * the adapter's read side sees what it would see on a real SteVe.
 */

export const OPERATIONS = ["RemoteStartTransaction", "RemoteStopTransaction", "UnlockConnector", "ReserveNow", "CancelReservation"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** How the next call of an operation is answered. */
export type Outcome =
  /** the station answers with this OCPP status; an accepting one is played out in the database */
  | { kind: "response"; response: string }
  /** SteVe's timeout expired before the station answered */
  | { kind: "timeout" }
  /** the station answered with a CALLERROR */
  | { kind: "error"; errorCode: string; errorDescription?: string; errorDetails?: string }
  /** SteVe could not send (station not connected, …) */
  | { kind: "exception"; message: string }
  /** SteVe itself failed */
  | { kind: "http"; status: number };

const ACCEPTING: Record<Operation, string> = {
  RemoteStartTransaction: "Accepted",
  RemoteStopTransaction: "Accepted",
  UnlockConnector: "Unlocked",
  ReserveNow: "Accepted",
  CancelReservation: "Accepted",
};

/** SteVe's idTag rule for tags created through its UI and REST API. */
const ID_TAG = /^[a-zA-Z0-9.:_#-]{1,20}$/;

export interface FakeSteveOptions {
  writer: Pool;
  /** "evse" for SteVe 3.13+, "connector" before */
  topology: "evse" | "connector";
  user: string;
  password: string;
}

export interface FakeSteve {
  /** e.g. http://127.0.0.1:PORT/steve (SteVe's default context path) */
  baseUrl: string;
  /** every operation call received, in order */
  calls: { operation: Operation; body: Record<string, unknown> }[];
  /** queue the outcome of the next call of `operation` (default: the station accepts) */
  next(operation: Operation, outcome: Outcome): void;
  /** the station reports a periodic energy sample, `addWh` more than the last */
  meter(transactionPk: number, addWh: number): Promise<void>;
  /** the station reports a status of one connector (0: the whole station) */
  status(chargeBoxId: string, connectorId: number, status: string, errorCode?: string): Promise<void>;
  /** resolves once the rows of every answered call are written; rejects with a failed write */
  idle(): Promise<void>;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startFakeSteve(options: FakeSteveOptions): Promise<FakeSteve> {
  const { writer } = options;
  const pk = options.topology === "evse" ? "evse_pk" : "connector_pk";
  const evseTable = options.topology;
  const evseNumber = options.topology === "evse" ? "evse_id" : "connector_id";
  const reservations = stationReservations(writer, pk);
  const queued = new Map<Operation, Outcome[]>();
  const calls: FakeSteve["calls"] = [];
  const pending = new Set<Promise<unknown>>();
  const failures: unknown[] = [];
  let taskId = 0;

  // Strictly increasing times, so "the newest row" is never a tie between two rows written in one millisecond.
  let lastMs = 0;
  const tick = (): Date => {
    lastMs = Math.max(Date.now(), lastMs + 1);
    return new Date(lastMs);
  };

  const query = async <T extends RowDataPacket[] | ResultSetHeader>(sql: string, values: unknown[] = []) => (await writer.query<T>(sql, values))[0];
  const insert = (table: string, row: Record<string, unknown>) => query<ResultSetHeader>(`INSERT INTO ${table} SET ?`, [row]);

  /** SteVe creates an EVSE row the first time a station reports a connector. */
  async function evsePk(chargeBoxId: string, connectorId: number): Promise<number> {
    const where = `charge_box_id = ? AND ${evseNumber} = ?${options.topology === "evse" ? " AND topology_source = 'ocpp1'" : ""}`;
    const [row] = await query<RowDataPacket[]>(`SELECT ${pk} AS pk FROM ${evseTable} WHERE ${where}`, [chargeBoxId, connectorId]);
    if (row) return row.pk;
    return (await insert(evseTable, { charge_box_id: chargeBoxId, [evseNumber]: connectorId })).insertId;
  }

  const status = async (chargeBoxId: string, connectorId: number, value: string, errorCode = "NoError") => {
    await insert("connector_status", { [pk]: await evsePk(chargeBoxId, connectorId), status_timestamp: tick(), status: value, error_code: errorCode });
  };

  /** The EVSE's energy register in Wh: its newest reading. */
  async function register(evse: number): Promise<number> {
    const [row] = await query<RowDataPacket[]>(
      `SELECT value FROM connector_meter_value WHERE ${pk} = ? AND (measurand IS NULL OR measurand = 'Energy.Active.Import.Register')
       AND phase IS NULL ORDER BY value_timestamp DESC LIMIT 1`,
      [evse],
    );
    return row ? Number(row.value) : 0;
  }

  const sample = (evse: number, transactionPk: number, wh: number, context: string) =>
    insert("connector_meter_value", {
      [pk]: evse,
      transaction_pk: transactionPk,
      value_timestamp: tick(),
      value: String(wh),
      reading_context: context,
      measurand: "Energy.Active.Import.Register",
      unit: "Wh",
    });

  async function activeTransaction(transactionPk: number) {
    const [row] = await query<RowDataPacket[]>(
      `SELECT s.transaction_pk AS transactionPk, s.${pk} AS evse, s.id_tag AS idTag, e.charge_box_id AS chargeBoxId, e.${evseNumber} AS connectorId
       FROM transaction_start s JOIN ${evseTable} e ON e.${pk} = s.${pk}
       WHERE s.transaction_pk = ? AND NOT EXISTS (SELECT 1 FROM transaction_stop t WHERE t.transaction_pk = s.transaction_pk)`,
      [transactionPk],
    );
    return row;
  }

  // What the station does after accepting, as SteVe records it.
  const plays: Record<Operation, (chargeBoxId: string, body: any, reservationPk?: number) => Promise<void>> = {
    async RemoteStartTransaction(chargeBoxId, body) {
      const connectorId = body.connectorId || 1;
      const evse = await evsePk(chargeBoxId, connectorId);
      // SteVe inserts an unknown idTag from a StartTransaction so the foreign key holds.
      await query("INSERT IGNORE INTO ocpp_tag (id_tag) VALUES (?)", [body.idTag]);
      await status(chargeBoxId, connectorId, "Preparing");
      const meterStart = await register(evse);
      const now = tick();
      const { insertId } = await insert("transaction_start", { [pk]: evse, id_tag: body.idTag, event_timestamp: now, start_timestamp: now, start_value: String(meterStart) });
      await reservations.use(evse, body.idTag, insertId);
      await sample(evse, insertId, meterStart, "Transaction.Begin");
      await status(chargeBoxId, connectorId, "Charging");
    },
    async RemoteStopTransaction(chargeBoxId, body) {
      const tx = await activeTransaction(body.transactionId);
      const meterStop = await register(tx.evse);
      await sample(tx.evse, tx.transactionPk, meterStop, "Transaction.End");
      const now = tick();
      await insert("transaction_stop", {
        transaction_pk: tx.transactionPk,
        event_timestamp: now,
        event_actor: "station",
        stop_timestamp: now,
        stop_value: String(meterStop),
        stop_reason: "Remote",
      });
      await status(chargeBoxId, tx.connectorId, "Finishing");
      await status(chargeBoxId, tx.connectorId, "Available");
    },
    async UnlockConnector() {},
    async ReserveNow(chargeBoxId, body, reservationPk) {
      await query("UPDATE reservation SET status = 'ACCEPTED' WHERE reservation_pk = ?", [reservationPk]);
      await status(chargeBoxId, body.connectorId, "Reserved");
    },
    async CancelReservation(chargeBoxId, body) {
      const [row] = await query<RowDataPacket[]>(
        `SELECT e.${evseNumber} AS connectorId FROM reservation r JOIN ${evseTable} e ON e.${pk} = r.${pk} WHERE r.reservation_pk = ?`,
        [body.reservationId],
      );
      await query("UPDATE reservation SET status = 'CANCELLED' WHERE reservation_pk = ?", [body.reservationId]);
      if (row) await status(chargeBoxId, row.connectorId, "Available");
    },
  };

  const required = (body: any, field: string, check: (v: any) => boolean) => {
    if (!check(body[field])) throw new HttpError(400, `${field}: invalid or missing`);
  };
  const isInt = (min: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= min;
  const isText = (v: unknown) => typeof v === "string" && v.length > 0;

  /** SteVe's request validation of the operation parameters (the *Params DTOs). */
  function validate(operation: Operation, body: any): void {
    if (!Array.isArray(body.chargeBoxIdList) || body.chargeBoxIdList.length !== 1 || !isText(body.chargeBoxIdList[0]))
      throw new HttpError(400, "chargeBoxIdList: exactly one charge box is required");
    if (operation === "RemoteStartTransaction") {
      required(body, "idTag", (v) => isText(v) && v.length <= 40);
      if (body.connectorId !== undefined) required(body, "connectorId", isInt(0));
    }
    if (operation === "RemoteStopTransaction") required(body, "transactionId", isInt(1));
    if (operation === "UnlockConnector") required(body, "connectorId", isInt(1));
    if (operation === "ReserveNow") {
      required(body, "connectorId", isInt(0));
      required(body, "idTag", (v) => isText(v) && v.length <= 40);
      required(body, "expiry", (v) => typeof v === "string" && Date.parse(v) > Date.now());
    }
    if (operation === "CancelReservation") required(body, "reservationId", isInt(1));
  }

  /** What a connected station answers unless a test queued something else. */
  async function stationAnswer(operation: Operation, known: boolean, chargeBoxId: string, body: any): Promise<Outcome> {
    if (!known) return { kind: "exception", message: `The charge point '${chargeBoxId}' is not connected` };
    if (operation === "RemoteStopTransaction" && !(await activeTransaction(body.transactionId))) return { kind: "response", response: "Rejected" };
    const refusal = body.idTag && (await reservations.refusal(operation, await evsePk(chargeBoxId, body.connectorId || 1), body.idTag));
    if (refusal) return { kind: "response", response: refusal };
    return { kind: "response", response: ACCEPTING[operation] };
  }

  async function operate(operation: Operation, body: any): Promise<{ status: number; body: unknown }> {
    validate(operation, body);
    calls.push({ operation, body });
    const chargeBoxId: string = body.chargeBoxIdList[0];
    const [box] = await query<RowDataPacket[]>("SELECT 1 FROM charge_box WHERE charge_box_id = ?", [chargeBoxId]);
    const outcome: Outcome = queued.get(operation)?.shift() ?? (await stationAnswer(operation, box !== undefined, chargeBoxId, body));
    if (outcome.kind === "http") throw new HttpError(outcome.status, "Internal error");
    const answer = { taskId: ++taskId, taskFinished: true, successResponses: [] as unknown[], errorResponses: [] as unknown[], exceptions: [] as unknown[] };
    if (outcome.kind === "timeout") answer.taskFinished = false;
    if (outcome.kind === "error")
      answer.errorResponses.push({ chargeBoxId, errorCode: outcome.errorCode, errorDescription: outcome.errorDescription ?? "", errorDetails: outcome.errorDetails ?? null });
    if (outcome.kind === "exception") answer.exceptions.push({ chargeBoxId, exceptionMessage: outcome.message });
    if (outcome.kind === "response") answer.successResponses.push({ chargeBoxId, response: outcome.response });

    // SteVe books a reservation (WAITING) before it sends ReserveNow and drops it unless the station accepts.
    let reservationPk: number | undefined;
    if (operation === "ReserveNow") {
      const { insertId } = await insert("reservation", {
        [pk]: await evsePk(chargeBoxId, body.connectorId),
        id_tag: body.idTag,
        start_datetime: new Date(),
        expiry_datetime: new Date(body.expiry),
        status: "WAITING",
      });
      reservationPk = insertId;
      if (!(outcome.kind === "response" && outcome.response === "Accepted"))
        await query("DELETE FROM reservation WHERE reservation_pk = ?", [insertId]);
    }
    if (outcome.kind === "response" && outcome.response === ACCEPTING[operation]) {
      // The station acts after it answered; tests wait for it with idle().
      const play = plays[operation](chargeBoxId, body, reservationPk);
      pending.add(play);
      play.catch((err) => failures.push(err)).finally(() => pending.delete(play));
    }
    return { status: 200, body: answer };
  }

  const tagView = async (where: string, values: unknown[]) =>
    (
      await query<RowDataPacket[]>(
        `SELECT o.ocpp_tag_pk AS ocppTagPk, o.id_tag AS idTag, o.parent_id_tag AS parentIdTag, o.expiry_date AS expiryDate,
           o.max_active_transaction_count AS maxActiveTransactionCount, o.note,
           (SELECT COUNT(*) FROM transaction_start s WHERE s.id_tag = o.id_tag
             AND NOT EXISTS (SELECT 1 FROM transaction_stop t WHERE t.transaction_pk = s.transaction_pk)) AS activeTransactionCount
         FROM ocpp_tag o ${where} ORDER BY o.ocpp_tag_pk`,
        values,
      )
    ).map((r) => ({
      ...r,
      activeTransactionCount: Number(r.activeTransactionCount),
      inTransaction: Number(r.activeTransactionCount) > 0,
      blocked: r.maxActiveTransactionCount === 0,
    }));

  /** The OcppTagForm fields besides idTag (which a PUT cannot change). */
  function tagFields(body: any) {
    if (body.parentIdTag !== undefined && body.parentIdTag !== null) required(body, "parentIdTag", (v) => typeof v === "string" && ID_TAG.test(v));
    if (body.maxActiveTransactionCount !== undefined) required(body, "maxActiveTransactionCount", isInt(-1));
    return {
      parent_id_tag: body.parentIdTag ?? null,
      expiry_date: body.expiryDate ? new Date(body.expiryDate) : null,
      max_active_transaction_count: body.maxActiveTransactionCount ?? 1,
      note: body.note ?? null,
    };
  }

  async function tags(method: string, rest: string[], params: URLSearchParams, body: any): Promise<{ status: number; body: unknown }> {
    const tagPk = rest[0] === undefined ? undefined : Number(rest[0]);
    const one = async (status = 200) => {
      const [tag] = await tagView("WHERE o.ocpp_tag_pk = ?", [tagPk]);
      if (!tag) throw new HttpError(404, `Could not find this ocppTag: ${rest[0]}`);
      return { status, body: tag };
    };
    if (method === "GET" && tagPk === undefined) {
      const idTag = params.get("idTag");
      return { status: 200, body: await tagView(idTag ? "WHERE o.id_tag = ?" : "", idTag ? [idTag] : []) };
    }
    if (method === "POST" && tagPk === undefined) {
      required(body, "idTag", (v) => typeof v === "string" && ID_TAG.test(v));
      const [exists] = await query<RowDataPacket[]>("SELECT 1 FROM ocpp_tag WHERE id_tag = ?", [body.idTag]);
      if (exists) throw new HttpError(422, `An ocppTag with idTag '${body.idTag}' already exists`);
      const { insertId } = await insert("ocpp_tag", { id_tag: body.idTag, ...tagFields(body) });
      return { status: 201, body: (await tagView("WHERE o.ocpp_tag_pk = ?", [insertId]))[0] };
    }
    if (tagPk === undefined || !Number.isInteger(tagPk)) throw new HttpError(404, "Not Found");
    if (method === "GET" && rest.length === 1) return one();
    if (method === "PUT" && rest.length === 1) {
      await one();
      await query("UPDATE ocpp_tag SET ? WHERE ocpp_tag_pk = ?", [tagFields(body), tagPk]);
      return one();
    }
    if (method === "DELETE" && rest.length === 1) {
      const found = await one();
      await query("DELETE FROM ocpp_tag WHERE ocpp_tag_pk = ?", [tagPk]);
      return found;
    }
    if (method === "PATCH" && rest[1] === "expire") {
      await one();
      await query("UPDATE ocpp_tag SET expiry_date = ? WHERE ocpp_tag_pk = ?", [tick(), tagPk]);
      return one();
    }
    throw new HttpError(405, "Method Not Allowed");
  }

  async function idle(): Promise<void> {
    while (pending.size) await Promise.allSettled([...pending]);
    // A station play that failed would otherwise only show as missing rows.
    if (failures.length) throw failures.shift();
  }

  const expected = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString("base64")}`;

  async function route(req: http.IncomingMessage, raw: string): Promise<{ status: number; body: unknown; headers?: Record<string, string> }> {
    if (req.headers.authorization !== expected)
      return { status: 401, body: springError(401, "Unauthorized", "Full authentication is required", req.url!), headers: { "WWW-Authenticate": 'Basic realm="SteVe"' } };
    const url = new URL(req.url!, "http://fake");
    const parts = url.pathname.split("/").filter(Boolean);
    if (parts[0] !== "steve" || parts[1] !== "api" || parts[2] !== "v1") throw new HttpError(404, "Not Found");
    let body: any = {};
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        throw new HttpError(400, "JSON parse error");
      }
    }
    if (parts[3] === "operations" && parts.length === 5 && (OPERATIONS as readonly string[]).includes(parts[4])) {
      if (req.method !== "POST") throw new HttpError(405, "Method Not Allowed");
      return operate(parts[4] as Operation, body ?? {});
    }
    if (parts[3] === "ocppTags") return tags(req.method!, parts.slice(4), url.searchParams, body ?? {});
    throw new HttpError(404, "Not Found");
  }

  const springError = (status: number, error: string, message: string, path: string) => ({
    timestamp: new Date().toISOString(),
    status,
    error,
    message,
    path,
  });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      route(req, Buffer.concat(chunks).toString("utf8"))
        .catch((err: unknown) => {
          const status = err instanceof HttpError ? err.status : 500;
          return { status, body: springError(status, http.STATUS_CODES[status] ?? "Error", (err as Error).message, req.url!), headers: undefined };
        })
        .then(({ status, body, headers }) => {
          res.writeHead(status, { "Content-Type": "application/json", ...headers });
          res.end(JSON.stringify(body));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/steve`,
    calls,
    next(operation, outcome) {
      queued.set(operation, [...(queued.get(operation) ?? []), outcome]);
    },
    async meter(transactionPk, addWh) {
      const tx = await activeTransaction(transactionPk);
      if (!tx) throw new Error(`transaction ${transactionPk} is not running`);
      await sample(tx.evse, transactionPk, (await register(tx.evse)) + addWh, "Sample.Periodic");
    },
    status,
    idle,
    async close() {
      await idle();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
