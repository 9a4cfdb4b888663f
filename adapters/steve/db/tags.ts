import type { Pool, RowDataPacket } from "mysql2/promise";
import type { OcppTagRow, ReservationRow } from "./rows";
import type { SteveSchemaInfo } from "./schema-info";

/** ocpp_tag rows with their running transaction count (what SteVe's ocpp_tag_activity view adds). */
export async function ocppTags(pool: Pool, schema: SteveSchemaInfo, idTags?: string[]): Promise<OcppTagRow[]> {
  if (idTags && idTags.length === 0) return [];
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT o.ocpp_tag_pk AS ocppTagPk, o.id_tag AS idTag, o.parent_id_tag AS parentIdTag, o.expiry_date AS expiryDate,
       o.max_active_transaction_count AS maxActiveTransactionCount, o.note, ${schema.hasUpdatedAt ? "o.updated_at" : "NULL"} AS updatedAt,
       (SELECT COUNT(*) FROM transaction_start s WHERE s.id_tag = o.id_tag
         AND NOT EXISTS (SELECT 1 FROM transaction_stop t WHERE t.transaction_pk = s.transaction_pk)) AS activeTransactionCount
     FROM ocpp_tag o ${idTags ? "WHERE o.id_tag IN (?)" : ""} ORDER BY o.id_tag`,
    idTags ? [idTags] : [],
  );
  return rows.map((r) => ({ ...r, activeTransactionCount: Number(r.activeTransactionCount) }) as OcppTagRow);
}

/** Reservations, newest first; `since` limits them to those made after it (matching a ReserveNow to its row). */
export async function reservations(pool: Pool, schema: SteveSchemaInfo, since?: Date): Promise<ReservationRow[]> {
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT r.reservation_pk AS reservationPk, r.${schema.evsePk} AS evsePk, e.charge_box_id AS chargeBoxId,
       e.${schema.evseNumber} AS evseId, r.transaction_pk AS transactionPk, r.id_tag AS idTag,
       r.start_datetime AS startDatetime, r.expiry_datetime AS expiryDatetime, r.status
     FROM reservation r JOIN ${schema.evseTable} e ON e.${schema.evsePk} = r.${schema.evsePk}
     ${since ? "WHERE r.start_datetime > ?" : ""} ORDER BY r.reservation_pk DESC`,
    since ? [since] : [],
  );
  return rows as ReservationRow[];
}
