import { createPool, type Pool } from "mysql2/promise";

/** `adapters.steve.database` in the gateway config. */
export interface SteveDbSettings {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/**
 * A small pool on SteVe's database. SteVe keeps its timestamps in UTC, so
 * both the driver (`timezone: "Z"`) and the session read them as UTC; every
 * session is also made read-only, so a mistake here can never write into the
 * central system even when the account was granted more than SELECT.
 */
export function createStevePool(settings: SteveDbSettings, connectionLimit = 8): Pool {
  const pool = createPool({
    host: settings.host,
    port: settings.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    timezone: "Z",
    connectionLimit,
    connectTimeout: 5_000,
    enableKeepAlive: true,
  });
  pool.on("connection", (connection) => {
    connection.query("SET time_zone = '+00:00'");
    connection.query("SET SESSION TRANSACTION READ ONLY");
  });
  return pool;
}
