/** What the SteVe database tests share (test/steve/steve-db.test.ts, test/steve/steve-evse-status.test.ts): the mapping settings, and one MariaDB with a seeded SteVe database per generation. */
import type { Pool } from "mysql2/promise";
import { SteveDb } from "../../adapters/steve/db/steve-db";
import { DEFAULT_EVSE_ID_PATTERN, type SteveMappingSettings } from "../../adapters/steve/mapping/settings";
import { startMariaDb, type MariaDb, type TestDatabase } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { BETA, createSteveSchema, seedSteve, writerPool, type SeedIds } from "../support/steve-seed";

export const settings: SteveMappingSettings = {
  country_code: "DE",
  party_id: "ABC",
  currency: "EUR",
  publish: true,
  time_zone: "Europe/Amsterdam",
  evse_id_pattern: DEFAULT_EVSE_ID_PATTERN,
  capabilities: ["REMOTE_START_STOP_CAPABLE", "UNLOCK_CAPABLE"],
  connector_defaults: { standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16, max_electric_power: 11_000 },
  status: { preparing: "AVAILABLE", finishing: "CHARGING", heartbeat_stale_after_seconds: 600 },
  locations: [],
  charge_boxes: {
    [BETA.id]: { coordinates: { latitude: "52.0907400", longitude: "5.1214200" }, tariff_ids: ["BETA-AC"], facilities: ["CAFE"] },
  },
  operator: { name: "Alpha Charging" },
  facilities: ["SUPERMARKET"],
  opening_times: { twentyfourseven: true },
  parking_type: "PARKING_LOT",
  tariff_ids: ["STD"],
};

export const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
export const valid = (schema: { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } }, value: unknown) => {
  const result = schema.safeParse(value);
  expect(result.error?.issues ?? []).toEqual([]);
};

/** One MariaDB for the calling test file, with a seeded SteVe database per generation, read through SteveDb as the adapter reads it. */
export function steveDatabases() {
  let maria: MariaDb;
  const env = {} as Record<SteveGeneration, { access: TestDatabase; writer: Pool; db: SteveDb; ids: SeedIds }>;

  beforeAll(async () => {
    maria = await startMariaDb();
    for (const generation of ["3.14", "3.12"] as const) {
      const access = await maria.createDatabase(`steve_${generation.replace(".", "")}`);
      const writer = writerPool(access.writer);
      await createSteveSchema(writer, generation);
      const ids = await seedSteve(writer, generation);
      env[generation] = { access, writer, ids, db: await SteveDb.open(access.reader) };
    }
  }, 60_000);

  afterAll(async () => {
    for (const e of Object.values(env)) {
      await e.db.close();
      await e.writer.end();
    }
    await maria?.stop();
  });
  return env;
}
