import type { Pool, RowDataPacket } from "mysql2/promise";
import type { ReservationRow } from "./rows";
import type { SteveSchemaInfo } from "./schema-info";

const columns = (schema: SteveSchemaInfo) =>
  `r.reservation_pk AS reservationPk, r.${schema.evsePk} AS evsePk, e.charge_box_id AS chargeBoxId,
   e.${schema.evseNumber} AS evseId, r.transaction_pk AS transactionPk, r.id_tag AS idTag,
   r.start_datetime AS startDatetime, r.expiry_datetime AS expiryDatetime, r.status`;

/**
 * The reservations of some charge boxes that hold an EVSE at some time in [from, to): WAITING (SteVe booked it
 * and waits for the station's answer) or ACCEPTED, not used by a transaction, from start_datetime to
 * expiry_datetime. The expiry range comes first: real SteVe indexes reservation.expiry_datetime
 * (reservation_expiry_idx), so only reservations still to expire after `from` are read, never the history.
 */
export async function reservationsHolding(pool: Pool, schema: SteveSchemaInfo, chargeBoxIds: string[], from: Date, to: Date): Promise<ReservationRow[]> {
  if (chargeBoxIds.length === 0) return [];
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT ${columns(schema)} FROM reservation r JOIN ${schema.evseTable} e ON e.${schema.evsePk} = r.${schema.evsePk}
     WHERE r.expiry_datetime > ? AND r.start_datetime < ? AND r.status IN ('WAITING', 'ACCEPTED') AND r.transaction_pk IS NULL
       AND e.charge_box_id IN (?)
     ORDER BY r.start_datetime, r.reservation_pk`,
    [from, to, chargeBoxIds],
  );
  return rows as ReservationRow[];
}

/** The reservations with these reservation_pks (the OCPP reservationIds), by primary key; a deleted one is missing. */
export async function reservationsByPk(pool: Pool, schema: SteveSchemaInfo, reservationPks: number[]): Promise<ReservationRow[]> {
  if (reservationPks.length === 0) return [];
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT ${columns(schema)} FROM reservation r JOIN ${schema.evseTable} e ON e.${schema.evsePk} = r.${schema.evsePk}
     WHERE r.reservation_pk IN (?) ORDER BY r.reservation_pk`,
    [reservationPks],
  );
  return rows as ReservationRow[];
}
