import fs from "node:fs";

// `__REDIS_SERVER__` and `__TEST_DIST__` are declared (and set) in redis.global-setup.ts.

export default async function globalTeardown(): Promise<void> {
  const dist = globalThis.__TEST_DIST__;
  if (dist) {
    globalThis.__TEST_DIST__ = undefined;
    delete process.env.OCPI_GATEWAY_DIST;
    fs.rmSync(dist, { recursive: true, force: true });
  }
  const server = globalThis.__REDIS_SERVER__;
  if (!server) return;
  globalThis.__REDIS_SERVER__ = undefined;
  delete process.env.REDIS_URL;
  await server.stop();
}
