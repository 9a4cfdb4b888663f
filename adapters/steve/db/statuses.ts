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

/**
 * The newest connector_status row of every EVSE and station (evse 0).
 * connector_status is append-only history; like SteVe's own query, the
 * newest is the row at MAX(status_timestamp) per EVSE, which the
 * (pk, status_timestamp) index answers without reading the history.
 */
async function newestStatuses(pool: Pool, schema: SteveSchemaInfo, evsePks?: number[]): Promise<Map<number, StatusRow>> {
  const pk = schema.evsePk;
  if (evsePks?.length === 0) return new Map();
  // Only the EVSEs asked for (a page of Locations, the boxes a poll saw change), not every EVSE's history.
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT ${statusColumns(schema)}
     FROM (SELECT ${pk} AS pk, MAX(status_timestamp) AS ts FROM connector_status ${evsePks ? `WHERE ${pk} IN (?)` : ""} GROUP BY ${pk}) m
     JOIN connector_status cs ON cs.${pk} = m.pk AND cs.status_timestamp = m.ts
     JOIN ${schema.evseTable} e ON e.${pk} = m.pk`,
    evsePks ? [evsePks] : [],
  );
  // Rows sharing the newest timestamp have no order in SteVe either; one of them wins.
  return new Map(rows.map((r) => [r.evsePk as number, toStatus(r)]));
}

/** Accepted reservations not yet used or expired at `now`, per EVSE (the one expiring last). */
async function activeReservations(pool: Pool, schema: SteveSchemaInfo, now: Date, evsePks?: number[]): Promise<Map<number, ActiveReservation>> {
  if (evsePks?.length === 0) return new Map();
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT ${schema.evsePk} AS evsePk, reservation_pk AS reservationPk, id_tag AS idTag, expiry_datetime AS expiry
     FROM reservation WHERE status = 'ACCEPTED' AND transaction_pk IS NULL AND expiry_datetime > ?${evsePks ? ` AND ${schema.evsePk} IN (?)` : ""}
     ORDER BY expiry_datetime`,
    evsePks ? [now, evsePks] : [now],
  );
  return new Map(rows.map((r) => [r.evsePk as number, { reservationPk: r.reservationPk, idTag: r.idTag, expiry: r.expiry }]));
}

/** What decides the status of every EVSE (of the given charge boxes): see mapping/status.ts. */
export async function currentStatuses(pool: Pool, schema: SteveSchemaInfo, now: Date, chargeBoxIds?: string[]): Promise<EvseStatusFacts[]> {
  if (chargeBoxIds && chargeBoxIds.length === 0) return [];
  const [evses] = await pool.query<RowDataPacket[]>(
    `SELECT e.${schema.evsePk} AS evsePk, e.charge_box_id AS chargeBoxId, e.${schema.evseNumber} AS evseId,
       cb.registration_status AS registrationStatus, cb.last_heartbeat_timestamp AS lastHeartbeat
     FROM ${schema.evseTable} e JOIN charge_box cb ON cb.charge_box_id = e.charge_box_id
     ${chargeBoxIds ? "WHERE e.charge_box_id IN (?)" : ""} ORDER BY e.charge_box_id, e.${schema.evseNumber}`,
    chargeBoxIds ? [chargeBoxIds] : [],
  );
  const pks = chargeBoxIds ? evses.map((e) => e.evsePk as number) : undefined;
  const [latest, reservations] = await Promise.all([newestStatuses(pool, schema, pks), activeReservations(pool, schema, now, pks)]);
  const stationPk = new Map<string, number>();
  for (const e of evses) if (e.evseId === 0) stationPk.set(e.chargeBoxId, e.evsePk);
  return evses
    .filter((e) => e.evseId !== 0)
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
