import type { Socket } from "node:net";
import { createRedisClient, whenReady, type RedisClient } from "../../core/store/redis-connection";

/**
 * Issue #11: the commands a Redis connection is given in one turn of the event loop leave in one write
 * (core/store/redis-connection.ts), not a system call each, and come back in order with their own answers.
 */
describe("Redis connections coalesce a turn's commands into one write", () => {
  let client: RedisClient;
  beforeEach(async () => {
    if (!process.env.REDIS_URL) throw new Error("REDIS_URL is not set: the jest global setup starts a redis-server");
    client = createRedisClient({ url: process.env.REDIS_URL }, { commandTimeoutMs: 2000 });
    await whenReady(client, 5000, () => undefined);
  });
  afterEach(async () => {
    client.disconnect();
  });

  it("sends 50 commands issued in one turn with one socket write, each answered in order", async () => {
    const socket = (client as unknown as { stream: Socket & { _writev?: unknown; _write: unknown } }).stream;
    let writes = 0;
    const countCalls = (name: "_write" | "_writev") => {
      const original = socket[name] as (...a: unknown[]) => unknown;
      socket[name] = function (this: Socket, ...args: unknown[]) {
        writes++;
        return original.apply(this, args);
      };
    };
    countCalls("_write");
    countCalls("_writev");
    const key = `coalesce:${process.pid}:${Date.now()}`;
    const answers = await Promise.all(Array.from({ length: 50 }, () => client.incr(key)));
    expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(writes).toBe(1);

    // commands of the next turns go out too (the socket is uncorked every turn), one write per turn
    writes = 0;
    expect(await client.get(key)).toBe("50");
    expect(await client.del(key)).toBe(1);
    expect(writes).toBe(2);
  });
});
