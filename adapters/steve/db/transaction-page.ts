import type { Pool, RowDataPacket } from "mysql2/promise";

/** Which transactions a Sessions or CDRs list holds, and which page of them. */
export interface TransactionPageQuery {
  /** CDRs: only stopped transactions */
  finished: boolean;
  /** only these idTags (the partner's tokens); undefined: every transaction */
  idTags?: string[];
  /** epoch ms on the mapped last_updated: from inclusive, to exclusive */
  dateFrom?: number;
  dateTo?: number;
  offset: number;
  limit: number;
}

/**
 * A transaction's last_updated as mapping/sessions.ts `transactionUpdatedAt`
 * gives it, in whole seconds (the mapped DateTime): the newest of its start
 * row, its latest stop row and its meter values, each found through an index
 * on transaction_pk.
 */
const UPDATED_SECONDS = `FLOOR(UNIX_TIMESTAMP(GREATEST(s.event_timestamp,
    COALESCE((SELECT MAX(x.event_timestamp) FROM transaction_stop x WHERE x.transaction_pk = s.transaction_pk), s.event_timestamp),
    COALESCE((SELECT MAX(mv.value_timestamp) FROM connector_meter_value mv WHERE mv.transaction_pk = s.transaction_pk), s.event_timestamp))))`;

function whereSql(q: TransactionPageQuery): { sql: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (q.finished) conditions.push("EXISTS (SELECT 1 FROM transaction_stop t WHERE t.transaction_pk = s.transaction_pk)");
  if (q.idTags) {
    conditions.push("s.id_tag IN (?)");
    params.push(q.idTags);
  }
  if (q.dateFrom !== undefined) {
    const since = new Date(Math.floor(q.dateFrom / 1000) * 1000);
    // Only what changed since: candidates through the timestamp indexes, before the exact bound.
    conditions.push(`(s.event_timestamp >= ? OR s.transaction_pk IN (SELECT transaction_pk FROM transaction_stop WHERE event_timestamp >= ?)
      OR s.transaction_pk IN (SELECT transaction_pk FROM connector_meter_value WHERE value_timestamp >= ?))`);
    params.push(since, since, since);
    conditions.push(`${UPDATED_SECONDS} * 1000 >= ?`);
    params.push(q.dateFrom);
  }
  if (q.dateTo !== undefined) {
    conditions.push(`${UPDATED_SECONDS} * 1000 < ?`);
    params.push(q.dateTo);
  }
  return { sql: conditions.length ? ` WHERE ${conditions.join(" AND ")}` : "", params };
}

/**
 * The transaction_pks of one page of a Sessions or CDRs list, in list order
 * (oldest last_updated first, ties by id, the id being the transaction_pk
 * as a string), and how many the list holds: ordered, limited and counted
 * by MariaDB, so that only the page's transactions are read whole and mapped.
 */
export async function transactionPage(pool: Pool, q: TransactionPageQuery): Promise<{ pks: number[]; total: number }> {
  if (q.idTags?.length === 0) return { pks: [], total: 0 };
  const where = whereSql(q);
  const [[count], [rows]] = await Promise.all([
    pool.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM transaction_start s${where.sql}`, where.params),
    pool.query<RowDataPacket[]>(
      `SELECT s.transaction_pk AS pk FROM transaction_start s${where.sql}
       ORDER BY ${UPDATED_SECONDS}, CAST(s.transaction_pk AS CHAR) LIMIT ? OFFSET ?`,
      [...where.params, q.limit, q.offset],
    ),
  ]);
  return { pks: rows.map((r) => Number(r.pk)), total: Number(count[0].n) };
}
