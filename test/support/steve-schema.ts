/**
 * A SteVe-compatible schema, written from the column facts in
 * shared/steve/README.md §2 (no SteVe file copied): only the tables and
 * columns the steve adapter reads, with SteVe's keys, so queries that work
 * here work on a real SteVe database.
 *
 * Two generations:
 * - "3.12": SteVe 3.9–3.12. Table `connector` (`connector_pk`), coordinates
 *   on `address`, no created_at/updated_at, no time zone.
 * - "3.14": SteVe 3.14.1+. `connector` renamed to `evse` (`evse_pk` in every
 *   child table) plus `evse_connector`, created_at/updated_at, the address
 *   time zone and reservation.status_timestamp.
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
  UNIQUE KEY (charge_box_id),
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
  KEY (${pk}, status_timestamp),
  KEY (status_timestamp),
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
  KEY (event_timestamp),
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
  KEY (event_timestamp),
  FOREIGN KEY (transaction_pk) REFERENCES transaction_start (transaction_pk) ON DELETE CASCADE
)`,
    `CREATE TABLE connector_meter_value (
  ${pk} INT NOT NULL,
  transaction_pk INT NULL,
  value_timestamp ${TS},
  value TEXT,
  reading_context VARCHAR(255), format VARCHAR(255), measurand VARCHAR(255),
  location VARCHAR(255), unit VARCHAR(255), phase VARCHAR(255),
  KEY (transaction_pk),
  KEY (value_timestamp),
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
  FOREIGN KEY (${pk}) REFERENCES ${evse} (${pk}) ON DELETE CASCADE,
  FOREIGN KEY (id_tag) REFERENCES ocpp_tag (id_tag) ON DELETE CASCADE ON UPDATE CASCADE,
  FOREIGN KEY (transaction_pk) REFERENCES transaction_start (transaction_pk) ON DELETE SET NULL`)}
)`,
  ];
}
