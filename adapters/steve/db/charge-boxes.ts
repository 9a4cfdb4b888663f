import type { Pool, RowDataPacket } from "mysql2/promise";
import type { ChargeBoxRow } from "./rows";
import type { SteveSchemaInfo } from "./schema-info";

/** Update times of a charge box's Location facts: the box, its address, its EVSEs and their plugs (3.13+). */
function updatedAtColumns(schema: SteveSchemaInfo): string[] {
  if (!schema.hasUpdatedAt) return [];
  const columns = ["cb.updated_at", "a.updated_at"];
  if (schema.topology === "evse") columns.push("(SELECT MAX(e.updated_at) FROM evse e WHERE e.charge_box_id = cb.charge_box_id)");
  if (schema.hasEvseConnector)
    columns.push(
      "(SELECT MAX(ec.updated_at) FROM evse e JOIN evse_connector ec ON ec.evse_pk = e.evse_pk WHERE e.charge_box_id = cb.charge_box_id)",
    );
  return columns;
}

function selectSql(schema: SteveSchemaInfo, extra = ""): string {
  // Coordinates live on address since 3.9, on charge_box before.
  const lat = schema.addressCoordinates ? "a.latitude" : schema.chargeBoxCoordinates ? "cb.location_latitude" : "NULL";
  const lon = schema.addressCoordinates ? "a.longitude" : schema.chargeBoxCoordinates ? "cb.location_longitude" : "NULL";
  return `SELECT cb.charge_box_pk AS chargeBoxPk, cb.charge_box_id AS chargeBoxId, cb.ocpp_protocol AS ocppProtocol,
      cb.registration_status AS registrationStatus, cb.description, cb.meter_serial_number AS meterSerialNumber,
      cb.last_heartbeat_timestamp AS lastHeartbeat,
      ${updatedAtColumns(schema).map((c, i) => `${c} AS updated${i},`).join(" ")}
      a.address_pk AS addressPk, a.street, a.house_number AS houseNumber, a.zip_code AS zipCode, a.city, a.country,
      CAST(${lat} AS CHAR) AS latitude, CAST(${lon} AS CHAR) AS longitude, ${schema.hasTimeZone ? "a.time_zone" : "NULL"} AS timeZone${extra}
    FROM charge_box cb LEFT JOIN address a ON a.address_pk = cb.address_pk`;
}

const newest = (dates: (Date | null | undefined)[]): Date | null =>
  dates.reduce<Date | null>((max, d) => (d instanceof Date && (!max || d > max) ? d : max), null);

const toRow = (r: RowDataPacket): ChargeBoxRow => ({
  chargeBoxPk: r.chargeBoxPk,
  chargeBoxId: r.chargeBoxId,
  ocppProtocol: r.ocppProtocol,
  registrationStatus: r.registrationStatus,
  description: r.description,
  meterSerialNumber: r.meterSerialNumber,
  lastHeartbeat: r.lastHeartbeat,
  updatedAt: newest([r.updated0, r.updated1, r.updated2, r.updated3]),
  address:
    r.addressPk === null
      ? null
      : {
          street: r.street,
          houseNumber: r.houseNumber,
          zipCode: r.zipCode,
          city: r.city,
          country: r.country,
          latitude: r.latitude,
          longitude: r.longitude,
          timeZone: r.timeZone,
        },
});

export async function chargeBoxes(pool: Pool, schema: SteveSchemaInfo, ids?: string[]): Promise<ChargeBoxRow[]> {
  if (ids && ids.length === 0) return [];
  const where = ids ? " WHERE cb.charge_box_id IN (?)" : "";
  const [rows] = await pool.query<RowDataPacket[]>(`${selectSql(schema)}${where} ORDER BY cb.charge_box_id`, ids ? [ids] : []);
  return rows.map(toRow);
}

/**
 * Charge boxes whose Location facts changed after `since`. Before SteVe 3.13
 * nothing carries an update time, so every charge box is returned and the
 * caller compares with what it published.
 */
export async function chargeBoxesUpdatedSince(pool: Pool, schema: SteveSchemaInfo, since: Date): Promise<ChargeBoxRow[]> {
  if (!schema.hasUpdatedAt) return chargeBoxes(pool, schema);
  const columns = updatedAtColumns(schema);
  const [rows] = await pool.query<RowDataPacket[]>(
    `${selectSql(schema)} WHERE ${columns.map((c) => `${c} > ?`).join(" OR ")} ORDER BY cb.charge_box_id`,
    columns.map(() => since),
  );
  return rows.map(toRow);
}

/** A charge box with what orders its Location in a list: its newest status row, and whether it has EVSEs (evse_id ≠ 0). */
export interface ChargeBoxKeyRow extends ChargeBoxRow {
  /** newest connector_status.status_timestamp of any of its EVSEs, the station's (0) included */
  newestStatus: Date | null;
  hasEvses: boolean;
  /** before 3.13: an EVSE without any status row, its own or the station's (its last_updated is then `now`) */
  silentEvse: boolean;
}

/**
 * Charge boxes (all, or these ids) with what a Location list is ordered and
 * filtered by (mapping/locations.ts `locationKeys`), without their EVSEs:
 * one row per box. The newest status comes from the (pk, status_timestamp)
 * index, one EVSE at a time, never by reading the status history.
 */
export async function chargeBoxKeys(pool: Pool, schema: SteveSchemaInfo, ids?: string[]): Promise<ChargeBoxKeyRow[]> {
  if (ids && ids.length === 0) return [];
  const { evseTable: t, evsePk: pk, evseNumber: n } = schema;
  const extra = `,
      (SELECT MAX((SELECT MAX(cs.status_timestamp) FROM connector_status cs WHERE cs.${pk} = e.${pk})) FROM ${t} e WHERE e.charge_box_id = cb.charge_box_id) AS newestStatus,
      EXISTS (SELECT 1 FROM ${t} e WHERE e.charge_box_id = cb.charge_box_id AND e.${n} <> 0) AS hasEvses,
      ${
        schema.hasUpdatedAt
          ? "0"
          : `EXISTS (SELECT 1 FROM ${t} e WHERE e.charge_box_id = cb.charge_box_id AND e.${n} <> 0
              AND NOT EXISTS (SELECT 1 FROM connector_status cs WHERE cs.${pk} = e.${pk}))
            AND NOT EXISTS (SELECT 1 FROM ${t} s JOIN connector_status cs ON cs.${pk} = s.${pk} WHERE s.charge_box_id = cb.charge_box_id AND s.${n} = 0)`
      } AS silentEvse`;
  const where = ids ? " WHERE cb.charge_box_id IN (?)" : "";
  const [rows] = await pool.query<RowDataPacket[]>(`${selectSql(schema, extra)}${where} ORDER BY cb.charge_box_id`, ids ? [ids] : []);
  return rows.map((r) => ({ ...toRow(r), newestStatus: r.newestStatus, hasEvses: Boolean(r.hasEvses), silentEvse: Boolean(r.silentEvse) }));
}
