import type { Pool, RowDataPacket } from "mysql2/promise";

/**
 * What the connected SteVe schema has, read from information_schema at
 * start (docs/steve.md, "Versions supported"): 3.13 renamed `connector` to `evse`
 * and added `evse_connector` and created_at/updated_at; coordinates moved
 * from charge_box to address in 3.9; address.time_zone came in 3.14.1.
 */
export interface SteveSchemaInfo {
  /** "evse" from 3.13 on, "connector" before */
  topology: "evse" | "connector";
  /** the EVSE table and its key column in every child table */
  evseTable: "evse" | "connector";
  evsePk: "evse_pk" | "connector_pk";
  /** column of the EVSE number (OCPP connectorId) in that table */
  evseNumber: "evse_id" | "connector_id";
  hasEvseConnector: boolean;
  hasUpdatedAt: boolean;
  hasTimeZone: boolean;
  addressCoordinates: boolean;
  chargeBoxCoordinates: boolean;
  hasEvseIdExternal: boolean;
}

export async function detectSchema(pool: Pool): Promise<SteveSchemaInfo> {
  const [rows] = await pool.query<RowDataPacket[]>(
    "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = DATABASE()",
  );
  const columns = new Set(rows.map((r) => `${r.t}.${r.c}`));
  const has = (column: string) => columns.has(column);
  const evse = has("evse.evse_pk");
  if (!evse && !has("connector.connector_pk"))
    throw new Error("not a SteVe database: neither table evse (3.13+) nor table connector (up to 3.12) is readable");
  return {
    topology: evse ? "evse" : "connector",
    evseTable: evse ? "evse" : "connector",
    evsePk: evse ? "evse_pk" : "connector_pk",
    evseNumber: evse ? "evse_id" : "connector_id",
    hasEvseConnector: has("evse_connector.evse_pk"),
    hasUpdatedAt: has("charge_box.updated_at"),
    hasTimeZone: has("address.time_zone"),
    addressCoordinates: has("address.latitude"),
    chargeBoxCoordinates: has("charge_box.location_latitude"),
    hasEvseIdExternal: has("evse.evse_id_external"),
  };
}
