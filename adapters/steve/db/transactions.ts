import type { Pool, RowDataPacket } from "mysql2/promise";
import { chargedKwh, energyReadings, withOcppDefaults } from "./meter-values";
import type { MeterValueRow, TransactionRow } from "./rows";
import type { SteveSchemaInfo } from "./schema-info";

/** Which transactions to read; conditions combine with AND. */
export interface TransactionFilter {
  /** only running (no stop row) or only stopped ones */
  active?: boolean;
  transactionPks?: number[];
  /** whose latest stop row was inserted after this (finished since a watermark) */
  stoppedAfter?: Date;
  /**
   * started, stopped or sampled after this (sessions to update); with two dates, start/stop rows are
   * compared with `events` (SteVe's clock) and meter values with `samples` (the station's clock)
   */
  changedAfter?: Date | { events: Date; samples: Date };
}

// The start row joined with its latest stop row, as SteVe's `transaction` view does; read from the
// tables so nothing depends on the view's column names.
const selectSql = (schema: SteveSchemaInfo) => `SELECT s.transaction_pk AS transactionPk, s.${schema.evsePk} AS evsePk,
    e.charge_box_id AS chargeBoxId, e.${schema.evseNumber} AS evseId, s.id_tag AS idTag,
    s.event_timestamp AS startEventTimestamp, s.start_timestamp AS startTimestamp, s.start_value AS startValue,
    t.event_timestamp AS stopEventTimestamp, t.stop_timestamp AS stopTimestamp, t.stop_value AS stopValue,
    t.stop_reason AS stopReason, t.event_actor AS stopEventActor
  FROM transaction_start s
  JOIN ${schema.evseTable} e ON e.${schema.evsePk} = s.${schema.evsePk}
  LEFT JOIN transaction_stop t ON t.transaction_pk = s.transaction_pk
    AND t.event_timestamp = (SELECT MAX(x.event_timestamp) FROM transaction_stop x WHERE x.transaction_pk = s.transaction_pk)`;

function whereSql(filter: TransactionFilter): { sql: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.active !== undefined) conditions.push(filter.active ? "t.transaction_pk IS NULL" : "t.transaction_pk IS NOT NULL");
  if (filter.transactionPks) {
    conditions.push("s.transaction_pk IN (?)");
    params.push(filter.transactionPks);
  }
  if (filter.stoppedAfter) {
    conditions.push("t.event_timestamp > ?");
    params.push(filter.stoppedAfter);
  }
  if (filter.changedAfter) {
    conditions.push(`(s.event_timestamp > ? OR t.event_timestamp > ?
      OR EXISTS (SELECT 1 FROM connector_meter_value mv WHERE mv.transaction_pk = s.transaction_pk AND mv.value_timestamp > ?))`);
    const { events, samples } = filter.changedAfter instanceof Date ? { events: filter.changedAfter, samples: filter.changedAfter } : filter.changedAfter;
    params.push(events, events, samples);
  }
  return { sql: conditions.length ? ` WHERE ${conditions.join(" AND ")}` : "", params };
}

async function meterValues(pool: Pool, transactionPks: number[]): Promise<Map<number, MeterValueRow[]>> {
  const byTransaction = new Map<number, MeterValueRow[]>();
  if (transactionPks.length === 0) return byTransaction;
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT transaction_pk AS transactionPk, value_timestamp AS timestamp, value, reading_context AS readingContext, format,
       measurand, location, unit, phase
     FROM connector_meter_value WHERE transaction_pk IN (?) ORDER BY value_timestamp`,
    [transactionPks],
  );
  for (const r of rows) {
    const list = byTransaction.get(r.transactionPk) ?? [];
    list.push(withOcppDefaults(r as any));
    byTransaction.set(r.transactionPk, list);
  }
  return byTransaction;
}

export async function transactions(pool: Pool, schema: SteveSchemaInfo, filter: TransactionFilter = {}): Promise<TransactionRow[]> {
  if (filter.transactionPks?.length === 0) return [];
  const where = whereSql(filter);
  const [rows] = await pool.query<RowDataPacket[]>(`${selectSql(schema)}${where.sql} ORDER BY s.transaction_pk`, where.params);
  const values = await meterValues(pool, rows.map((r) => r.transactionPk));
  return rows.map((r) => {
    const samples = values.get(r.transactionPk) ?? [];
    const startTimestamp: Date = r.startTimestamp ?? r.startEventTimestamp;
    const stopped = r.stopEventTimestamp !== null;
    const energy = energyReadings(
      { at: startTimestamp, wh: r.startValue ?? "" },
      samples,
      stopped ? { at: r.stopTimestamp ?? r.stopEventTimestamp, wh: r.stopValue ?? "" } : null,
    );
    return {
      transactionPk: r.transactionPk,
      evsePk: r.evsePk,
      chargeBoxId: r.chargeBoxId,
      evseId: r.evseId,
      idTag: r.idTag,
      startEventTimestamp: r.startEventTimestamp,
      startTimestamp,
      startValue: r.startValue,
      stopEventTimestamp: r.stopEventTimestamp,
      stopTimestamp: stopped ? (r.stopTimestamp ?? r.stopEventTimestamp) : null,
      stopValue: r.stopValue,
      stopReason: r.stopReason,
      stopEventActor: r.stopEventActor,
      meterValues: samples,
      energy,
      kwh: chargedKwh(energy),
    };
  });
}

/**
 * Where the poll's transaction reads stand, in transaction_pk (SteVe's
 * AUTO_INCREMENT, the OCPP transactionId): real SteVe indexes neither
 * transaction_start.event_timestamp nor transaction_stop.event_timestamp
 * alone (B1_0_5__stevedb.sql: transaction_start has its PRIMARY KEY,
 * idTag_idx, connector_pk_idx/evse_pk_idx (V1_1_4) and transaction_start_idx
 * on start_timestamp; transaction_stop only PRIMARY KEY (transaction_pk,
 * event_timestamp)), so "started or stopped since" by time reads every
 * transaction ever made. By key, a poll reads only what can have changed.
 */
export interface TransactionCursor {
  /** every transaction from this pk on is read (new starts, and those started within the overlap) */
  fromPk: number;
  /** transactions below fromPk still running at the last poll: their stop is looked for by primary key */
  openPks: number[];
}

/**
 * Transactions started, stopped or sampled after the dates (as
 * `changedAfter`), looked for only among: transaction_pk ≥ cursor.fromPk (a
 * range of the primary key), cursor.openPks (primary-key lookups; their stop
 * rows by transaction_stop's primary key) and those with meter values after
 * `samples` (cmv_value_timestamp_idx). The next cursor: fromPk advances past
 * the transactions whose start row is older than `settledBefore` (a start
 * committed late, with a smaller pk, is still ahead of it), openPks keeps those
 * below it without a stop. A further stop row of a transaction already
 * stopped before the last poll is not looked for.
 */
export async function changedTransactions(
  pool: Pool,
  schema: SteveSchemaInfo,
  since: { events: Date; samples: Date },
  cursor: TransactionCursor,
  settledBefore: Date,
): Promise<{ rows: TransactionRow[]; next: TransactionCursor }> {
  const [candidates] = await pool.query<RowDataPacket[]>(
    `SELECT s.transaction_pk AS pk, s.event_timestamp AS started,
       (SELECT MAX(x.event_timestamp) FROM transaction_stop x WHERE x.transaction_pk = s.transaction_pk) AS stopped
     FROM transaction_start s
     WHERE s.transaction_pk >= ?${cursor.openPks.length ? " OR s.transaction_pk IN (?)" : ""}
     ORDER BY s.transaction_pk`,
    cursor.openPks.length ? [cursor.fromPk, cursor.openPks] : [cursor.fromPk],
  );
  const [sampled] = await pool.query<RowDataPacket[]>(
    "SELECT DISTINCT transaction_pk AS pk FROM connector_meter_value WHERE value_timestamp > ? AND transaction_pk IS NOT NULL",
    [since.samples],
  );
  const changed = new Set<number>(sampled.map((r) => r.pk as number));
  for (const c of candidates) {
    if (c.started > since.events || (c.stopped !== null && c.stopped > since.events)) changed.add(c.pk);
  }
  let fromPk = cursor.fromPk;
  for (const c of candidates) {
    if (c.pk < fromPk) continue;
    if (c.started > settledBefore) break;
    fromPk = c.pk + 1;
  }
  const openPks = candidates.filter((c) => c.pk < fromPk && c.stopped === null).map((c) => c.pk as number);
  const rows = changed.size ? await transactions(pool, schema, { transactionPks: [...changed].sort((a, b) => a - b) }) : [];
  return { rows, next: { fromPk, openPks } };
}

/** The first cursor (first poll, or watermarks kept before cursors): one read of every transaction, once. */
export async function transactionCursorAt(pool: Pool, settledBefore: Date): Promise<TransactionCursor> {
  const [[first]] = await pool.query<RowDataPacket[]>(
    `SELECT COALESCE(MIN(transaction_pk), (SELECT COALESCE(MAX(transaction_pk), 0) + 1 FROM transaction_start)) AS fromPk
     FROM transaction_start WHERE event_timestamp > ?`,
    [settledBefore],
  );
  const fromPk = Number(first.fromPk);
  const [open] = await pool.query<RowDataPacket[]>(
    `SELECT s.transaction_pk AS pk FROM transaction_start s
     WHERE s.transaction_pk < ? AND NOT EXISTS (SELECT 1 FROM transaction_stop t WHERE t.transaction_pk = s.transaction_pk)`,
    [fromPk],
  );
  return { fromPk, openPks: open.map((r) => r.pk as number) };
}
