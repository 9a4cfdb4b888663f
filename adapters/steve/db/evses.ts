import type { Pool, RowDataPacket } from "mysql2/promise";
import type { ConnectorRow, EvseRow } from "./rows";
import type { SteveSchemaInfo } from "./schema-info";

/** A plug SteVe knows nothing about: before 3.13, or an EVSE whose plugs were never filled in. */
const unknownPlug = (updatedAt: Date | null): ConnectorRow => ({
  connectorId: 1,
  connectorType: null,
  connectorFormat: null,
  powerType: null,
  maxVoltage: null,
  maxAmperage: null,
  maxElectricPower: null,
  updatedAt,
});

function selectSql(schema: SteveSchemaInfo, filtered: boolean): string {
  const where = `WHERE e.${schema.evseNumber} <> 0${filtered ? " AND e.charge_box_id IN (?)" : ""}`;
  if (schema.topology === "connector")
    return `SELECT e.connector_pk AS evsePk, e.charge_box_id AS chargeBoxId, e.connector_id AS evseId,
        NULL AS evseIdExternal, NULL AS updatedAt, NULL AS connectorId
      FROM connector e ${where} ORDER BY e.charge_box_id, e.connector_id`;
  const plugs = schema.hasEvseConnector
    ? `ec.connector_id AS connectorId, ec.connector_type AS connectorType, ec.connector_format AS connectorFormat,
        ec.power_type AS powerType, ec.max_voltage AS maxVoltage, ec.max_amperage AS maxAmperage,
        ec.max_electric_power AS maxElectricPower, ec.updated_at AS connectorUpdatedAt`
    : "NULL AS connectorId";
  return `SELECT e.evse_pk AS evsePk, e.charge_box_id AS chargeBoxId, e.evse_id AS evseId,
      ${schema.hasEvseIdExternal ? "e.evse_id_external" : "NULL"} AS evseIdExternal, e.updated_at AS updatedAt, ${plugs}
    FROM evse e ${schema.hasEvseConnector ? "LEFT JOIN evse_connector ec ON ec.evse_pk = e.evse_pk" : ""}
    ${where} ORDER BY e.charge_box_id, e.topology_source, e.evse_id, connectorId`;
}

/** The EVSEs (evse_id ≠ 0) of all or of the given charge boxes, each with its plugs. */
export async function evses(pool: Pool, schema: SteveSchemaInfo, chargeBoxIds?: string[]): Promise<EvseRow[]> {
  if (chargeBoxIds && chargeBoxIds.length === 0) return [];
  const [rows] = await pool.query<RowDataPacket[]>(selectSql(schema, chargeBoxIds !== undefined), chargeBoxIds ? [chargeBoxIds] : []);
  const byPk = new Map<number, EvseRow>();
  for (const r of rows) {
    let evse = byPk.get(r.evsePk);
    if (!evse) {
      evse = { evsePk: r.evsePk, chargeBoxId: r.chargeBoxId, evseId: r.evseId, evseIdExternal: r.evseIdExternal, updatedAt: r.updatedAt, connectors: [] };
      byPk.set(r.evsePk, evse);
    }
    if (r.connectorId !== null)
      evse.connectors.push({
        connectorId: r.connectorId,
        connectorType: r.connectorType,
        connectorFormat: r.connectorFormat,
        powerType: r.powerType,
        maxVoltage: r.maxVoltage,
        maxAmperage: r.maxAmperage,
        maxElectricPower: r.maxElectricPower,
        updatedAt: r.connectorUpdatedAt,
      });
  }
  const out = [...byPk.values()];
  for (const evse of out) if (evse.connectors.length === 0) evse.connectors.push(unknownPlug(evse.updatedAt));
  return out;
}
