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
 * Accepted reservations not yet used nor expired, as SQL (`expiresAfter` a
 * placeholder or an expression). The expiry range comes first: real SteVe
 * indexes reservation.expiry_datetime (KEY reservation_expiry_idx, in its
 * baseline migration B1_0_5__stevedb.sql, kept by V1_1_4), so only the
 * reservations still to expire are read, never the table's history.
 */
const activeReservationsSql = (schema: SteveSchemaInfo, expiresAfter: string) =>
  `SELECT r.${schema.evsePk} AS evsePk, r.reservation_pk AS reservationPk, r.id_tag AS idTag, r.expiry_datetime AS expiry
   FROM reservation r WHERE r.expiry_datetime > ${expiresAfter} AND r.status = 'ACCEPTED' AND r.transaction_pk IS NULL`;

/** Rows ordered by expiry → per EVSE, the reservation expiring last. */
const reservationMap = (rows: RowDataPacket[]): Map<number, ActiveReservation> =>
  new Map(rows.filter((r) => r.reservationPk !== null).map((r) => [r.evsePk as number, { reservationPk: r.reservationPk, idTag: r.idTag, expiry: r.expiry }]));

/** Accepted reservations not yet used or expired at `now` (of the given charge boxes): per EVSE, the one expiring last. */
export async function activeReservations(pool: Pool, schema: SteveSchemaInfo, now: Date, chargeBoxIds?: string[]): Promise<Map<number, ActiveReservation>> {
  const { evseTable: t, evsePk: pk } = schema;
  const [rows] = await pool.query<RowDataPacket[]>(
    chargeBoxIds
      ? `SELECT a.* FROM (${activeReservationsSql(schema, "?")}) a JOIN ${t} e ON e.${pk} = a.evsePk WHERE e.charge_box_id IN (?) ORDER BY a.expiry`
      : `${activeReservationsSql(schema, "?")} ORDER BY r.expiry_datetime`,
    chargeBoxIds ? [now, chargeBoxIds] : [now],
  );
  return reservationMap(rows);
}

/**
 * What a Locations list held in memory checks at each poll (location-order.ts),
 * besides the boxes the poll saw change: how many charge boxes SteVe holds
 * (a deleted box leaves no other trace; a new one is among the boxes a poll
 * sees change, so the list then holds one more than SteVe counts) and the
 * active reservations (before 3.13 nothing dates their changes). SteVe's
 * clock comes with it, so a poll asks it all in its first statement.
 */
export interface ListWatch {
  boxCount: number;
  reservations: Map<number, ActiveReservation>;
}

/** SteVe's clock (NOW(6), as `SELECT NOW(6)`), with the ListWatch read at that time: one statement. */
export async function clockWithListWatch(pool: Pool, schema: SteveSchemaInfo): Promise<{ now: Date; watch: ListWatch }> {
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT NOW(6) AS now, b.n, a.evsePk, a.reservationPk, a.idTag, a.expiry
     FROM (SELECT COUNT(*) AS n FROM charge_box) b
     LEFT JOIN (${activeReservationsSql(schema, "NOW(6)")}) a ON 1 = 1
     ORDER BY a.expiry`,
  );
  return { now: rows[0].now as Date, watch: { boxCount: Number(rows[0].n), reservations: reservationMap(rows) } };
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
export async function currentStatuses(pool: Pool, schema: SteveSchemaInfo, now: Date, chargeBoxIds?: string[], withReservations = true): Promise<EvseStatusFacts[]> {
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
    withReservations ? activeReservations(pool, schema, now, chargeBoxIds) : new Map<number, ActiveReservation>(),
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
 *
 * Real SteVe has no index on connector_status.status_timestamp alone, only
 * (pk) and (pk, status_timestamp) (connector_status_cpk_st_idx in
 * B1_0_5__stevedb.sql, connector_status_epk_st_idx from V1_1_4): a plain
 * `status_timestamp > ?` reads the table's whole append-only history every
 * poll. So the newest timestamp per EVSE comes first, by a loose index scan
 * of the composite index (one index dive per EVSE, whatever the history),
 * and only when some EVSE has a newer row a second statement reads those
 * EVSEs' newer rows, a range of the same index per EVSE (the list of pks is a
 * constant there: in a join MariaDB reads each EVSE's whole history by the
 * pk alone). At idle, a poll costs the one dive per EVSE.
 */
export async function statusesSince(pool: Pool, schema: SteveSchemaInfo, since: Date): Promise<StatusRow[]> {
  const { evsePk: pk, evseTable: t } = schema;
  const [changed] = await pool.query<RowDataPacket[]>(
    `SELECT n.${pk} AS pk FROM (SELECT ${pk}, MAX(status_timestamp) AS newest FROM connector_status GROUP BY ${pk}) n WHERE n.newest > ?`,
    [since],
  );
  if (changed.length === 0) return [];
  const [rows] = await pool.query<RowDataPacket[]>(
    `SELECT ${statusColumns(schema)} FROM connector_status cs JOIN ${t} e ON e.${pk} = cs.${pk}
     WHERE cs.${pk} IN (?) AND cs.status_timestamp > ?
     ORDER BY cs.status_timestamp, cs.${pk}`,
    [changed.map((r) => r.pk), since],
  );
  return rows.map(toStatus);
}
