import { createPool, type Pool, type ResultSetHeader } from "mysql2/promise";
import type { DbSettings } from "./mariadb";
import { steveSchema, type SteveGeneration } from "./steve-schema";

/**
 * Seed data for a SteVe database of either generation, at fixed times
 * around SEED_NOW: two charge boxes (ALPHA with two EVSEs, BETA with one),
 * a finished transaction on ALPHA-2 and an active one on ALPHA-1, both with
 * meter values, a reservation on ALPHA-2, status history, and tags.
 * Tests compare what the adapter reads and maps against these constants.
 */

export const SEED_NOW = new Date("2026-09-01T12:00:00Z");
export const at = (minutesFromNow: number): Date => new Date(SEED_NOW.getTime() + minutesFromNow * 60_000);

export const ALPHA = {
  id: "CB-ALPHA",
  description: "Alpha Hub\nbehind the supermarket",
  meterSerial: "MS-ALPHA-1",
  heartbeat: at(-1),
  updatedAt: at(-24 * 60),
  address: {
    street: "Hauptstraße",
    houseNumber: "12",
    zipCode: "10115",
    city: "Berlin",
    country: "DE",
    latitude: "52.52000660",
    longitude: "13.40495400",
    timeZone: "Europe/Berlin",
  },
  evse1: { type: "IEC_62196_T2", format: "SOCKET", power: "AC_3_PHASE", voltage: 400, amperage: 32, watts: 22_000 },
  evse2: { external: "DE*ABC*EALPHA2", type: "IEC_62196_T2_COMBO", format: "CABLE", power: "DC", voltage: 920, amperage: 200, watts: 150_000 },
};

export const BETA = {
  id: "CB-BETA",
  description: "Beta",
  heartbeat: at(-2),
  updatedAt: at(-48 * 60),
  /** a plug edited in SteVe's UI an hour ago (3.13+): the Location changed then */
  connectorUpdatedAt: at(-60),
  address: { street: "Oudegracht", houseNumber: "231", zipCode: "3511 NK", city: "Utrecht", country: "NL" },
};

export const TAGS = { alice: "TAG-ALICE", bob: "TAG-BOB", carol: "TAG-CAROL", parent: "PARENT-1", blocked: "TAG-BLOCKED" };

/** Finished on ALPHA-2: 10.000 → 21.000 kWh register, so 11 kWh. */
export const FINISHED = {
  idTag: TAGS.alice,
  start: at(-180),
  startWh: "10000",
  samples: [
    { at: at(-165), value: "12500", unit: null },
    { at: at(-150), value: "15000", unit: "Wh" },
    { at: at(-135), value: "18.5", unit: "kWh" },
  ],
  stop: at(-120),
  stopEvent: new Date(at(-120).getTime() + 1_000),
  stopWh: "21000",
  stopReason: "Remote",
  kwh: 11,
};

/** Running on ALPHA-1: 50.000 → 57.250 kWh so far. */
export const ACTIVE = {
  idTag: TAGS.bob,
  start: at(-60),
  startWh: "50000",
  samples: [
    { at: at(-45), value: "52000", unit: "Wh" },
    { at: at(-30), value: "54500", unit: "Wh" },
    { at: at(-15), value: "57250", unit: "Wh" },
  ],
  kwh: 7.25,
};

export const RESERVATION = { idTag: TAGS.carol, start: at(-10), expiry: at(50) };

export interface SeedIds {
  /** evse_pk (3.14) or connector_pk (3.12) per `${chargeBoxId}-${evseId}` */
  evsePk: Record<string, number>;
  finishedPk: number;
  activePk: number;
  reservationPk: number;
}

/** A writer pool reading and writing UTC, like SteVe's own connection. */
export const writerPool = (settings: DbSettings): Pool => createPool({ ...settings, timezone: "Z", connectionLimit: 2 });

export async function createSteveSchema(db: Pool, generation: SteveGeneration): Promise<void> {
  for (const statement of steveSchema(generation)) await db.query(statement);
}

export async function seedSteve(db: Pool, generation: SteveGeneration): Promise<SeedIds> {
  const current = generation === "3.14";
  const pk = current ? "evse_pk" : "connector_pk";
  const insert = async (sql: string, values: unknown[]) => (await db.query<ResultSetHeader>(sql, values))[0].insertId;
  const stamps = (updatedAt: Date) => (current ? { created_at: updatedAt, updated_at: updatedAt } : {});
  const row = (tableName: string, values: Record<string, unknown>) => insert(`INSERT INTO ${tableName} SET ?`, [values]);

  const a = ALPHA.address;
  const alphaAddress = await row("address", {
    street: a.street,
    house_number: a.houseNumber,
    zip_code: a.zipCode,
    city: a.city,
    country: a.country,
    latitude: a.latitude,
    longitude: a.longitude,
    ...(current ? { time_zone: a.timeZone } : {}),
    ...stamps(ALPHA.updatedAt),
  });
  const b = BETA.address;
  const betaAddress = await row("address", {
    street: b.street,
    house_number: b.houseNumber,
    zip_code: b.zipCode,
    city: b.city,
    country: b.country,
    ...stamps(BETA.updatedAt),
  });
  const box = (id: string, description: string, heartbeat: Date, addressPk: number, updatedAt: Date, meterSerial: string | null) =>
    row("charge_box", {
      charge_box_id: id,
      ocpp_protocol: "ocpp1.6J",
      registration_status: "Accepted",
      description,
      meter_serial_number: meterSerial,
      last_heartbeat_timestamp: heartbeat,
      address_pk: addressPk,
      ...stamps(updatedAt),
    });
  await box(ALPHA.id, ALPHA.description, ALPHA.heartbeat, alphaAddress, ALPHA.updatedAt, ALPHA.meterSerial);
  await box(BETA.id, BETA.description, BETA.heartbeat, betaAddress, BETA.updatedAt, null);

  const evsePk: Record<string, number> = {};
  const evse = async (chargeBoxId: string, evseId: number, updatedAt: Date, external?: string) => {
    evsePk[`${chargeBoxId}-${evseId}`] = current
      ? await row("evse", { charge_box_id: chargeBoxId, evse_id: evseId, evse_id_external: external ?? null, ...stamps(updatedAt) })
      : await row("connector", { charge_box_id: chargeBoxId, connector_id: evseId });
  };
  await evse(ALPHA.id, 0, ALPHA.updatedAt);
  await evse(ALPHA.id, 1, ALPHA.updatedAt);
  await evse(ALPHA.id, 2, ALPHA.updatedAt, ALPHA.evse2.external);
  await evse(BETA.id, 0, BETA.updatedAt);
  await evse(BETA.id, 1, BETA.updatedAt);

  if (current) {
    for (const [key, c] of [[`${ALPHA.id}-1`, ALPHA.evse1], [`${ALPHA.id}-2`, ALPHA.evse2]] as const)
      await row("evse_connector", {
        evse_pk: evsePk[key],
        connector_id: 1,
        connector_type: c.type,
        connector_format: c.format,
        power_type: c.power,
        max_voltage: c.voltage,
        max_amperage: c.amperage,
        max_electric_power: c.watts,
        ...stamps(ALPHA.updatedAt),
      });
    // What SteVe's 3.13 migration back-fills: plug 1 with unknown attributes.
    await row("evse_connector", { evse_pk: evsePk[`${BETA.id}-1`], connector_id: 1, ...stamps(BETA.connectorUpdatedAt) });
  }

  await row("ocpp_tag", { id_tag: TAGS.parent, max_active_transaction_count: 1 });
  await row("ocpp_tag", { id_tag: TAGS.alice, parent_id_tag: TAGS.parent, max_active_transaction_count: 1, note: "Alice" });
  await row("ocpp_tag", { id_tag: TAGS.bob, max_active_transaction_count: 1 });
  await row("ocpp_tag", { id_tag: TAGS.carol, max_active_transaction_count: 1, expiry_date: at(30 * 24 * 60) });
  await row("ocpp_tag", { id_tag: TAGS.blocked, max_active_transaction_count: 0 });

  const status = (key: string, minutes: number, value: string, errorCode = "NoError") =>
    row("connector_status", { [pk]: evsePk[key], status_timestamp: at(minutes), status: value, error_code: errorCode });
  await status(`${ALPHA.id}-0`, -300, "Available");
  await status(`${ALPHA.id}-2`, -300, "Available");
  await status(`${ALPHA.id}-2`, -181, "Preparing");
  await status(`${ALPHA.id}-2`, -180, "Charging");
  await status(`${ALPHA.id}-2`, -120, "Finishing");
  await status(`${ALPHA.id}-2`, -118, "Available");
  await status(`${ALPHA.id}-1`, -300, "Available");
  await status(`${ALPHA.id}-1`, -61, "Preparing");
  await status(`${ALPHA.id}-1`, -60, "Charging");
  await status(`${BETA.id}-1`, -90, "Available");
  // The station as a whole reports a fault: every EVSE of BETA is out of order.
  await status(`${BETA.id}-0`, -30, "Faulted", "GroundFailure");

  const meter = (key: string, transactionPk: number, sample: { at: Date; value: string; unit: string | null }, extra = {}) =>
    row("connector_meter_value", { [pk]: evsePk[key], transaction_pk: transactionPk, value_timestamp: sample.at, value: sample.value, unit: sample.unit, ...extra });

  const finishedPk = await row("transaction_start", {
    event_timestamp: FINISHED.start,
    [pk]: evsePk[`${ALPHA.id}-2`],
    id_tag: FINISHED.idTag,
    start_timestamp: FINISHED.start,
    start_value: FINISHED.startWh,
  });
  for (const sample of FINISHED.samples) await meter(`${ALPHA.id}-2`, finishedPk, sample);
  // Not energy-register totals: a power sample, a per-phase register and a signed one must not count as energy.
  await meter(`${ALPHA.id}-2`, finishedPk, { at: at(-150), value: "11000", unit: "W" }, { measurand: "Power.Active.Import" });
  await meter(`${ALPHA.id}-2`, finishedPk, { at: at(-150), value: "5000", unit: "Wh" }, { phase: "L1" });
  await meter(`${ALPHA.id}-2`, finishedPk, { at: at(-150), value: "AAECAw==", unit: "Wh" }, { format: "SignedData" });
  await row("transaction_stop", {
    transaction_pk: finishedPk,
    event_timestamp: FINISHED.stopEvent,
    event_actor: "station",
    stop_timestamp: FINISHED.stop,
    stop_value: FINISHED.stopWh,
    stop_reason: FINISHED.stopReason,
  });

  const activePk = await row("transaction_start", {
    event_timestamp: ACTIVE.start,
    [pk]: evsePk[`${ALPHA.id}-1`],
    id_tag: ACTIVE.idTag,
    start_timestamp: ACTIVE.start,
    start_value: ACTIVE.startWh,
  });
  for (const sample of ACTIVE.samples) await meter(`${ALPHA.id}-1`, activePk, sample);

  const reservationPk = await row("reservation", {
    [pk]: evsePk[`${ALPHA.id}-2`],
    id_tag: RESERVATION.idTag,
    start_datetime: RESERVATION.start,
    expiry_datetime: RESERVATION.expiry,
    status: "ACCEPTED",
    ...(current ? { status_timestamp: RESERVATION.start } : {}),
    ...stamps(RESERVATION.start),
  });
  // A cancelled one on BETA-1 must not make it RESERVED.
  await row("reservation", {
    [pk]: evsePk[`${BETA.id}-1`],
    id_tag: TAGS.carol,
    start_datetime: at(-20),
    expiry_datetime: at(40),
    status: "CANCELLED",
    ...stamps(at(-20)),
  });

  return { evsePk, finishedPk, activePk, reservationPk };
}
