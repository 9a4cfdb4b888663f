// `__REDIS_SERVER__` is declared (and set) in redis.global-setup.ts.

export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__REDIS_SERVER__;
  if (!server) return;
  globalThis.__REDIS_SERVER__ = undefined;
  delete process.env.REDIS_URL;
  await server.stop();
}
