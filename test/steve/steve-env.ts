import type { Pool } from "mysql2/promise";
import type { SteveLog } from "../../adapters/steve/contracts";
import { SteveDb } from "../../adapters/steve/db/steve-db";
import { DEFAULT_EVSE_ID_PATTERN, type SteveMappingSettings } from "../../adapters/steve/mapping/settings";
import { startFakeSteve, type FakeSteve } from "../support/fake-steve";
import type { MariaDb, TestDatabase } from "../support/mariadb";
import type { SteveGeneration } from "../support/steve-schema";
import { createSteveSchema, seedSteve, writerPool, type SeedIds } from "../support/steve-seed";

/** One seeded SteVe database with its fake REST API, for the engine tests of test/steve. */
export interface SteveEnv {
  access: TestDatabase;
  writer: Pool;
  db: SteveDb;
  fake: FakeSteve;
  ids: SeedIds;
  close(): Promise<void>;
}

export const REST_USER = "gateway";
export const REST_PASSWORD = "s3cret-api-password";
export const CPO = { country_code: "DE", party_id: "ABC" };

export async function steveEnv(maria: MariaDb, name: string, generation: SteveGeneration): Promise<SteveEnv> {
  const access = await maria.createDatabase(name);
  const writer = writerPool(access.writer);
  await createSteveSchema(writer, generation);
  const ids = await seedSteve(writer, generation);
  const fake = await startFakeSteve({ writer, topology: generation === "3.14" ? "evse" : "connector", user: REST_USER, password: REST_PASSWORD });
  const db = await SteveDb.open(access.reader);
  return {
    access,
    writer,
    db,
    fake,
    ids,
    async close() {
      await fake.close();
      await db.close();
      await writer.end();
    },
  };
}

export const mappingSettings = (overrides: Partial<SteveMappingSettings> = {}): SteveMappingSettings => ({
  ...CPO,
  currency: "EUR",
  publish: true,
  time_zone: "Europe/Berlin",
  evse_id_pattern: DEFAULT_EVSE_ID_PATTERN,
  capabilities: ["REMOTE_START_STOP_CAPABLE"],
  connector_defaults: { standard: "IEC_62196_T2", format: "SOCKET", power_type: "AC_3_PHASE", max_voltage: 230, max_amperage: 16 },
  status: { preparing: "AVAILABLE", finishing: "CHARGING" },
  locations: [],
  charge_boxes: { "CB-BETA": { coordinates: { latitude: "52.0907400", longitude: "5.1214200" } } },
  ...overrides,
});

/** A SteveLog that keeps every line, to check what was logged (and that no secret was). */
export function captureLog(): SteveLog & { lines: { level: string; fields: Record<string, unknown>; message: string }[]; text(): string } {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
  return { lines, info: at("info"), warn: at("warn"), error: at("error"), text: () => JSON.stringify(lines) };
}

/** Polls `check` until it returns something truthy (or throws after `ms`). */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}
