/**
 * A SteVe-compatible schema, written from SteVe's column facts (no SteVe
 * file copied; docs/steve.md, "Tables and columns read"): only the tables and
 * columns the steve adapter reads, with SteVe's keys, so queries that work
 * here work on a real SteVe database.
 *
 * Two generations:
 * - "3.12": SteVe 3.9–3.12. Table `connector` (`connector_pk`), coordinates
 *   on `address`, no created_at/updated_at, no time zone.
 * - "3.14": SteVe 3.14.1+. `connector` renamed to `evse` (`evse_pk` in every
 *   child table) plus `evse_connector`, created_at/updated_at, the address
 *   time zone and reservation.status_timestamp.
 *
 * Indexes: exactly real SteVe's on the columns the adapter reads, no more
 * (an extra index here would hide a full scan that a real SteVe database
 * makes). From steve-community/steve src/main/resources/db/migration:
 * B1_0_5__stevedb.sql (baseline, 3.x) and V1_1_4__update.sql (3.13: connector
 * renamed to evse, the same indexes renamed: FK_cs_pk_idx → FK_cs_evse_pk_idx,
 * connector_status_cpk_st_idx → connector_status_epk_st_idx, connector_pk_idx →
 * evse_pk_idx, FK_cm_pk_idx → FK_cmv_evse_pk_idx, FK_connector_pk_reserv_idx →
 * FK_evse_pk_reserv_idx); V1_1_2 (created_at/updated_at) adds no index.
 * - charge_box: PK charge_box_pk, UNIQUE chargeBoxId_UNIQUE (charge_box_id),
 *   FK_charge_box_address_apk (address_pk); no index on updated_at or
 *   last_heartbeat_timestamp.
 * - connector/evse: PK, UNIQUE (charge_box_id, connector_id) → 3.13
 *   (charge_box_id, topology_source, evse_id).
 * - connector_status: no primary key; FK_cs_pk_idx (pk) and
 *   connector_status_cpk_st_idx (pk, status_timestamp). NO index on
 *   status_timestamp alone: "rows since a time" is a scan of the history,
 *   "newest per EVSE" is a loose index scan of the composite one.
 * - transaction_start: PK transaction_pk (AUTO_INCREMENT), idTag_idx (id_tag),
 *   connector_pk_idx / evse_pk_idx, transaction_start_idx (start_timestamp).
 *   NO index on event_timestamp.
 * - transaction_stop: PRIMARY KEY (transaction_pk, event_timestamp), nothing else.
 * - connector_meter_value: FK_cm_pk_idx / FK_cmv_evse_pk_idx (pk),
 *   FK_tid_cm_idx (transaction_pk), cmv_value_timestamp_idx (value_timestamp).
 * - reservation: PK, UNIQUE transaction_pk_UNIQUE, FK_idTag_r_idx (id_tag),
 *   reservation_start_idx (start_datetime), reservation_expiry_idx
 *   (expiry_datetime), reservation_status_idx (status), pk index.
 */
export type SteveGeneration = "3.12" | "3.14";

const TS = "TIMESTAMP(6) NULL DEFAULT NULL";
const stamps = `created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6)`;

export function steveSchema(generation: SteveGeneration): string[] {
  const current = generation === "3.14";
  const evse = current ? "evse" : "connector";
  const pk = current ? "evse_pk" : "connector_pk";
  const withStamps = (columns: string) => (current ? `${columns},\n  ${stamps}` : columns);

  return [
    `CREATE TABLE address (
  address_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  street VARCHAR(1000), house_number VARCHAR(255), zip_code VARCHAR(255), city VARCHAR(255),
  country VARCHAR(255) COMMENT 'ISO 3166 alpha-2',
  latitude DECIMAL(11,8), longitude DECIMAL(11,8)${current ? ",\n  time_zone VARCHAR(255)" : ""}${current ? `,\n  ${stamps}` : ""}
)`,
    `CREATE TABLE charge_box (
  ${withStamps(`charge_box_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  charge_box_id VARCHAR(255) NOT NULL,
  ocpp_protocol VARCHAR(255),
  registration_status VARCHAR(255) NOT NULL DEFAULT 'Accepted',
  charge_point_vendor VARCHAR(255), charge_point_model VARCHAR(255),
  meter_serial_number VARCHAR(255),
  last_heartbeat_timestamp ${TS},
  description MEDIUMTEXT,
  address_pk INT NULL,
  insert_connector_status_after_transaction_msg TINYINT(1) DEFAULT 1,
  UNIQUE KEY chargeBoxId_UNIQUE (charge_box_id),
  KEY FK_charge_box_address_apk (address_pk),
  FOREIGN KEY (address_pk) REFERENCES address (address_pk) ON DELETE SET NULL`)}
)`,
    current
      ? `CREATE TABLE evse (
  evse_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  charge_box_id VARCHAR(255) NOT NULL,
  evse_id INT NOT NULL COMMENT 'OCPP 1.x connectorId; 0 = the whole station',
  evse_id_external VARCHAR(255),
  topology_source ENUM('ocpp1','ocpp2') NOT NULL DEFAULT 'ocpp1',
  ${stamps},
  UNIQUE KEY (charge_box_id, topology_source, evse_id),
  FOREIGN KEY (charge_box_id) REFERENCES charge_box (charge_box_id) ON DELETE CASCADE ON UPDATE CASCADE
)`
      : `CREATE TABLE connector (
  connector_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  charge_box_id VARCHAR(255) NOT NULL,
  connector_id INT NOT NULL COMMENT '0 = the whole station',
  UNIQUE KEY (charge_box_id, connector_id),
  FOREIGN KEY (charge_box_id) REFERENCES charge_box (charge_box_id) ON DELETE CASCADE ON UPDATE CASCADE
)`,
    ...(current
      ? [
          `CREATE TABLE evse_connector (
  evse_connector_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  evse_pk INT NOT NULL,
  connector_id INT NOT NULL,
  connector_type VARCHAR(64), connector_format VARCHAR(16), power_type VARCHAR(32),
  max_voltage INT, max_amperage INT, max_electric_power INT,
  ${stamps},
  UNIQUE KEY (evse_pk, connector_id),
  FOREIGN KEY (evse_pk) REFERENCES evse (evse_pk) ON DELETE CASCADE
)`,
        ]
      : []),
    `CREATE TABLE connector_status (
  ${pk} INT NOT NULL,
  status_timestamp ${TS},
  status VARCHAR(255), error_code VARCHAR(255), error_info VARCHAR(255),
  vendor_id VARCHAR(255), vendor_error_code VARCHAR(255),
  KEY FK_cs_${current ? "evse_" : ""}pk_idx (${pk}),
  KEY connector_status_${current ? "e" : "c"}pk_st_idx (${pk}, status_timestamp),
  FOREIGN KEY (${pk}) REFERENCES ${evse} (${pk}) ON DELETE CASCADE
)`,
    `CREATE TABLE ocpp_tag (
  ${withStamps(`ocpp_tag_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  id_tag VARCHAR(255) NOT NULL,
  parent_id_tag VARCHAR(255),
  expiry_date ${TS},
  max_active_transaction_count INT NOT NULL DEFAULT 1 COMMENT '0 = blocked',
  note MEDIUMTEXT,
  UNIQUE KEY (id_tag),
  FOREIGN KEY (parent_id_tag) REFERENCES ocpp_tag (id_tag) ON DELETE SET NULL ON UPDATE CASCADE`)}
)`,
    `CREATE TABLE transaction_start (
  transaction_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY COMMENT 'the OCPP transactionId',
  event_timestamp TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) COMMENT 'insert time',
  ${pk} INT NOT NULL,
  id_tag VARCHAR(255) NOT NULL,
  start_timestamp ${TS} COMMENT 'station clock',
  start_value VARCHAR(255) COMMENT 'meterStart, Wh',
  KEY idTag_idx (id_tag),
  KEY ${current ? "evse_pk_idx" : "connector_pk_idx"} (${pk}),
  KEY transaction_start_idx (start_timestamp),
  FOREIGN KEY (${pk}) REFERENCES ${evse} (${pk}) ON DELETE CASCADE,
  FOREIGN KEY (id_tag) REFERENCES ocpp_tag (id_tag) ON DELETE CASCADE ON UPDATE CASCADE
)`,
    `CREATE TABLE transaction_stop (
  transaction_pk INT NOT NULL,
  event_timestamp TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  event_actor ENUM('station','manual'),
  stop_timestamp TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  stop_value VARCHAR(255) NOT NULL,
  stop_reason VARCHAR(255),
  PRIMARY KEY (transaction_pk, event_timestamp),
  FOREIGN KEY (transaction_pk) REFERENCES transaction_start (transaction_pk) ON DELETE CASCADE
)`,
    `CREATE TABLE connector_meter_value (
  ${pk} INT NOT NULL,
  transaction_pk INT NULL,
  value_timestamp ${TS},
  value TEXT,
  reading_context VARCHAR(255), format VARCHAR(255), measurand VARCHAR(255),
  location VARCHAR(255), unit VARCHAR(255), phase VARCHAR(255),
  KEY ${current ? "FK_cmv_evse_pk_idx" : "FK_cm_pk_idx"} (${pk}),
  KEY FK_tid_cm_idx (transaction_pk),
  KEY cmv_value_timestamp_idx (value_timestamp),
  FOREIGN KEY (${pk}) REFERENCES ${evse} (${pk}) ON DELETE CASCADE,
  FOREIGN KEY (transaction_pk) REFERENCES transaction_start (transaction_pk) ON DELETE SET NULL
)`,
    `CREATE TABLE reservation (
  ${withStamps(`reservation_pk INT NOT NULL AUTO_INCREMENT PRIMARY KEY COMMENT 'the OCPP reservationId',
  ${pk} INT NOT NULL,
  transaction_pk INT NULL,
  id_tag VARCHAR(255) NOT NULL,
  start_datetime DATETIME(6),
  expiry_datetime DATETIME(6),
  status VARCHAR(255) NOT NULL COMMENT 'WAITING, ACCEPTED, USED, CANCELLED'${current ? `,\n  status_timestamp ${TS}` : ""},
  UNIQUE KEY transaction_pk_UNIQUE (transaction_pk),
  KEY FK_idTag_r_idx (id_tag),
  KEY reservation_start_idx (start_datetime),
  KEY reservation_expiry_idx (expiry_datetime),
  KEY reservation_status_idx (status),
  KEY ${current ? "FK_evse_pk_reserv_idx" : "FK_connector_pk_reserv_idx"} (${pk}),
  FOREIGN KEY (${pk}) REFERENCES ${evse} (${pk}) ON DELETE CASCADE,
  FOREIGN KEY (id_tag) REFERENCES ocpp_tag (id_tag) ON DELETE CASCADE ON UPDATE CASCADE,
  FOREIGN KEY (transaction_pk) REFERENCES transaction_start (transaction_pk) ON DELETE SET NULL`)}
)`,
  ];
}
