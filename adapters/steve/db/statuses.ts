import type { Pool, RowDataPacket } from "mysql2/promise";
import type { ActiveReservation, EvseStatusFacts, StatusRow } from "./rows";
import type { SteveSchemaInfo } from "./schema-info";

const statusColumns = (schema: SteveSchemaInfo) =>
  `cs.${schema.evsePk} AS evsePk, e.charge_box_id AS chargeBoxId, e.${schema.evseNumber} AS evseId, cs.status,
   cs.status_timestamp AS statusTimestamp, cs.error_code AS errorCode, cs.error_info AS errorInfo, cs.vendor_error_code AS vendorErrorCode`;

const toStatus = (r: RowDataPacket): StatusRow => ({
  evsePk: r.evsePk,
  chargeBoxId: r.chargeBoxId,
  evseId: r.evseId,
  status: r.status,
  statusTimestamp: r.statusTimestamp,
  errorCode: r.errorCode,
  errorInfo: r.errorInfo,
  vendorErrorCode: r.vendorErrorCode,
});

/** Accepted reservations not yet used or expired at `now` (of the given charge boxes): per EVSE, the one expiring last. */
export async function activeReservations(pool: Pool, schema: SteveSchemaInfo, now: Date, chargeBoxIds?: string[]): Promise<Map<number, ActiveReservation>> {
  const { evseTable: t, evsePk: pk } = schema;
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT r.${pk} AS evsePk, r.reservation_pk AS reservationPk, r.id_tag AS idTag, r.expiry_datetime AS expiry
     FROM reservation r JOIN ${t} e ON e.${pk} = r.${pk}
     WHERE r.status = 'ACCEPTED' AND r.transaction_pk IS NULL AND r.expiry_datetime > ?${chargeBoxIds ? " AND e.charge_box_id IN (?)" : ""}
     ORDER BY r.expiry_datetime`,
    chargeBoxIds ? [now, chargeBoxIds] : [now],
  );
  return new Map(rows.map((r) => [r.evsePk as number, { reservationPk: r.reservationPk, idTag: r.idTag, expiry: r.expiry }]));
}

/** Charge boxes that sent a heartbeat after `since`, with their registration status (the status facts that change without a status row). */
export async function heartbeatsSince(pool: Pool, since: Date): Promise<{ chargeBoxId: string; lastHeartbeat: Date; registrationStatus: string }[]> {
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT charge_box_id AS chargeBoxId, last_heartbeat_timestamp AS lastHeartbeat, registration_status AS registrationStatus
     FROM charge_box WHERE last_heartbeat_timestamp > ?`,
    [since],
  );
  return rows as { chargeBoxId: string; lastHeartbeat: Date; registrationStatus: string }[];
}

/**
 * What decides the status of every EVSE (of the given charge boxes): see
 * mapping/status.ts. Two queries side by side: the EVSEs and stations
 * (evse 0) with their box's registration and heartbeat and their newest
 * connector_status row, and the active reservations. connector_status is
 * append-only history; like SteVe's own query, the newest is the row at
 * MAX(status_timestamp) per EVSE, which the (pk, status_timestamp) index
 * answers without reading the history. Rows sharing the newest timestamp
 * have no order in SteVe either; one of them wins.
 */
export async function currentStatuses(pool: Pool, schema: SteveSchemaInfo, now: Date, chargeBoxIds?: string[]): Promise<EvseStatusFacts[]> {
  if (chargeBoxIds && chargeBoxIds.length === 0) return [];
  const { evseTable: t, evsePk: pk, evseNumber: n } = schema;
  const boxes = chargeBoxIds ? [chargeBoxIds] : [];
  const [[evses], reservations] = await Promise.all([
    pool.query<RowDataPacket[]>(
      `SELECT e.${pk} AS evsePk, e.charge_box_id AS chargeBoxId, e.${n} AS evseId, cs.status, cs.status_timestamp AS statusTimestamp,
         cs.error_code AS errorCode, cs.error_info AS errorInfo, cs.vendor_error_code AS vendorErrorCode,
         cb.registration_status AS registrationStatus, cb.last_heartbeat_timestamp AS lastHeartbeat
       FROM ${t} e JOIN charge_box cb ON cb.charge_box_id = e.charge_box_id
       LEFT JOIN connector_status cs ON cs.${pk} = e.${pk}
         AND cs.status_timestamp = (SELECT MAX(x.status_timestamp) FROM connector_status x WHERE x.${pk} = e.${pk})
       ${chargeBoxIds ? "WHERE e.charge_box_id IN (?)" : ""} ORDER BY e.charge_box_id, e.${n}`,
      boxes,
    ),
    activeReservations(pool, schema, now, chargeBoxIds),
  ]);
  const latest = new Map<number, StatusRow>();
  for (const e of evses) if (e.statusTimestamp !== null) latest.set(e.evsePk, toStatus(e));
  const stationPk = new Map<string, number>();
  for (const e of evses) if (e.evseId === 0) stationPk.set(e.chargeBoxId, e.evsePk);
  const seen = new Set<number>();
  return evses
    .filter((e) => e.evseId !== 0 && !seen.has(e.evsePk) && seen.add(e.evsePk))
    .map((e) => {
      const station = stationPk.get(e.chargeBoxId);
      return {
        evsePk: e.evsePk,
        chargeBoxId: e.chargeBoxId,
        evseId: e.evseId,
        latest: latest.get(e.evsePk) ?? null,
        station: station === undefined ? null : (latest.get(station) ?? null),
        registrationStatus: e.registrationStatus,
        lastHeartbeat: e.lastHeartbeat,
        reservation: reservations.get(e.evsePk) ?? null,
      };
    });
}

/**
 * Status rows with status_timestamp after the watermark, oldest first,
 * station rows (evse 0) included: they change every EVSE of the station.
 * status_timestamp is the station's clock, so callers poll with an overlap.
 */
export async function statusesSince(pool: Pool, schema: SteveSchemaInfo, since: Date): Promise<StatusRow[]> {
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT ${statusColumns(schema)} FROM connector_status cs JOIN ${schema.evseTable} e ON e.${schema.evsePk} = cs.${schema.evsePk}
     WHERE cs.status_timestamp > ? ORDER BY cs.status_timestamp, cs.${schema.evsePk}`,
    [since],
  );
  return rows.map(toStatus);
}
