import { startRedis, type RedisServer } from "./redis-server";

declare global {
  // Shared with the global teardown, which jest runs in the same process.
  var __REDIS_SERVER__: RedisServer | undefined;
}

/** Starts a throwaway redis-server for the whole run unless REDIS_URL points at one already. */
export default async function globalSetup(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const server = await startRedis();
  globalThis.__REDIS_SERVER__ = server;
  // Set before jest forks its workers, so they inherit it.
  process.env.REDIS_URL = server.url;
}
