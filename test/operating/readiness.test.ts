import "reflect-metadata";
import { Gateway } from "../../app/gateway";
import { startRedis, type RedisServer } from "../support/redis-server";
import { removeTempDirs, testGatewayConfig } from "../support/gateway-config";
import { freePorts, ocpiRequest, startGateway, type GatewayProcess } from "../support/gateway-process";
import { captureLogs } from "../support/log-capture";

/**
 * Issue #14: `/health` and `/ready` without auth and without config;
 * readiness follows the store (Redis stopped: fails within 2 s; started
 * again: passes) and turns false on SIGTERM before the listener closes.
 */

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<number> => {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
};

describe("/health and /ready on Redis", () => {
  let redis: RedisServer;
  let gateway: Gateway;
  let url: string;
  const logs = captureLogs("info");

  beforeAll(async () => {
    redis = await startRedis();
    const [port] = await freePorts(1);
    url = `http://127.0.0.1:${port}`;
    const config = testGatewayConfig({ port, store: { type: "redis", url: redis.url }, modules: { locations: { adapter: "local" } } });
    gateway = await Gateway.create(config, { logger: logs.logger });
    await gateway.listen();
  });

  afterAll(async () => {
    await gateway?.close();
    await redis?.stop();
    removeTempDirs();
  });

  it("answers /health and /ready without auth, naming nothing of the config", async () => {
    const health = await ocpiRequest("GET", `${url}/health`);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
    const ready = await ocpiRequest("GET", `${url}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: "ready" });
    expect(ready.headers["cache-control"]).toBe("no-store");
    for (const text of [health.text, ready.text]) {
      expect(text).not.toContain(String(redis.port));
      expect(text).not.toContain("redis");
    }
  });

  it("fails within 2 s of Redis stopping, names only the store, and passes again once Redis is back", async () => {
    await redis.kill();
    const failedAfter = await until("/ready fails", async () => (await ocpiRequest("GET", `${url}/ready`)).status === 503, 5000);
    expect(failedAfter).toBeLessThan(2000);
    const failing = await ocpiRequest("GET", `${url}/ready`);
    expect(failing.body).toEqual({ status: "not ready", failing: ["store"] });
    expect(failing.text).not.toContain(String(redis.port));
    // the process still lives
    expect((await ocpiRequest("GET", `${url}/health`)).status).toBe(200);

    await redis.restart();
    await until("/ready passes", async () => (await ocpiRequest("GET", `${url}/ready`)).status === 200, 10_000);
    const lines = logs.lines.map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.msg === "readiness check failing: /ready answers 503")).toHaveLength(1);
    expect(lines.filter((l) => l.msg === "readiness check passes again")).toHaveLength(1);
  });
});

describe("/ready on SIGTERM", () => {
  let gateway: GatewayProcess;

  afterAll(async () => {
    await gateway?.kill();
    removeTempDirs();
  });

  it("turns false before the listener closes (server.shutdown_delay_ms)", async () => {
    gateway = await startGateway({ port: 0, modules: { locations: { adapter: "local" } }, server: { shutdown_delay_ms: 1500 } });
    expect((await ocpiRequest("GET", `${gateway.url}/ready`)).status).toBe(200);
    const stopped = gateway.stop();
    const seen: string[] = [];
    const started = Date.now();
    // poll until the listener refuses connections: every answer until then is recorded
    for (;;) {
      try {
        const answer = await ocpiRequest("GET", `${gateway.url}/ready`);
        const state = answer.status === 200 ? "ready" : `${answer.status} ${answer.body?.failing?.join(",")}`;
        if (seen[seen.length - 1] !== state) seen.push(state);
      } catch {
        seen.push("closed");
        break;
      }
      if (Date.now() - started > 10_000) throw new Error(`the listener never closed: ${seen.join(" → ")}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await stopped).toBe(0);
    // possibly one "ready" answer before the signal was handled, then not ready, then closed
    expect(seen.filter((s) => s !== "ready")).toEqual(["503 shutting down", "closed"]);
  });
});
