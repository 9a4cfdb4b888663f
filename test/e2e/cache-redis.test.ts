import "reflect-metadata";
import { ChangeFeed } from "../../core/contract/change-feed";
import { startRedis, type RedisServer } from "../support/redis-server";
import { redisStore, removeTempDirs } from "../support/gateway-config";
import { LocationsBackend, logLines, partner, startCacheGateway, testLocation, type CacheGateway } from "../support/counting-locations";

/**
 * Issue #5, Cache, with its Redis tier: two gateway instances in front of
 * one backend share cached answers and invalidations through Redis, and a
 * Redis that goes away (a private redis-server, stopped and restarted)
 * fails no request and is used again once it is back.
 */

const LIST = "/ocpi/2.3.0/sender/locations";
const EMSP = partner("emsp", "2.3.0", "DE", "EMS");
const OURS = { country_code: "NL", party_id: "GWY" };
const UNAVAILABLE = "Redis tier unavailable";
const BACK = "Redis tier is back";

const gateways: CacheGateway[] = [];

const seeded = (count: number): LocationsBackend => {
  const backend = new LocationsBackend();
  for (let n = 1; n <= count; n++) backend.store(testLocation(n));
  return backend;
};

const get = async (gw: CacheGateway, path: string, auth = gw.auth[EMSP.id]) => {
  const response = await gw.http.get(path).set("Authorization", auth);
  expect(response.status).toBe(200);
  return response;
};

afterAll(async () => {
  for (const gw of gateways) await gw.close();
  removeTempDirs();
});

describe("two instances on the store's Redis", () => {
  it("share cached answers, and an invalidation on one is seen by the other", async () => {
    const backend = seeded(3);
    const store = redisStore();
    const a = await startCacheGateway({ backend, partners: [EMSP], store });
    gateways.push(a);
    const b = await startCacheGateway({ backend, partners: [EMSP], store, register: false });
    gateways.push(b);
    const auth = a.auth[EMSP.id];

    await get(a, `${LIST}?limit=2`, auth);
    const fromRedis = await get(b, `${LIST}?limit=2`, auth);
    expect(backend.senderCalls).toBe(1);
    expect(fromRedis.body.data.map((l: { id: string }) => l.id)).toEqual(["LOC1", "LOC2"]);
    expect(fromRedis.headers["x-total-count"]).toBe("3");

    // a receiver PUT on A
    const pushed = testLocation(8, "Pushed", { country_code: "DE", party_id: "EMS" });
    expect((await a.http.put("/ocpi/2.3.0/receiver/locations/DE/EMS/LOC8").set("Authorization", auth).send(pushed)).status).toBe(201);
    await get(b, `${LIST}?limit=2`, auth);
    expect(backend.senderCalls).toBe(2);

    // a change reported to B's ChangeFeed
    await get(a, `${LIST}/LOC1`, auth);
    expect(backend.senderCalls).toBe(3);
    backend.store(testLocation(1, "Renamed"));
    await b.gateway.container.resolve(ChangeFeed).publish({ module: "locations", owner: OURS, path: ["LOC1"], kind: "upsert", object: testLocation(1, "Renamed") });
    expect((await get(a, `${LIST}/LOC1`, auth)).body.data.name).toBe("Renamed");
    expect(backend.senderCalls).toBe(4);
  });
});

describe("a Redis for the cache that goes away and comes back", () => {
  let redis: RedisServer;
  let a: CacheGateway;
  let b: CacheGateway;
  let backend: LocationsBackend;

  beforeAll(async () => {
    redis = await startRedis();
    backend = seeded(5);
    // SQLite stores: only the cache depends on this Redis.
    const cache = { redis_url: redis.url };
    a = await startCacheGateway({ backend, partners: [EMSP], cache });
    b = await startCacheGateway({ backend, partners: [EMSP], cache });
    await waitForSharedTier();
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis.stop();
  });

  let probe = 0;
  /** True when an answer A just cached reaches B through Redis, without the backend. */
  const sharedTierWorks = async (): Promise<boolean> => {
    // a date_from of its own makes every probe a new entry
    const from = new Date(Date.UTC(2025, 0, 1) + ++probe * 1000).toISOString();
    const path = `${LIST}?limit=1&date_from=${from}`;
    await get(a, path);
    const calls = backend.senderCalls;
    await get(b, path);
    return backend.senderCalls === calls;
  };

  const waitForSharedTier = async (): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!(await sharedTierWorks())) {
      if (Date.now() > deadline) throw new Error("the Redis tier was not used within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it("fails no request while redis-server stops, keeps serving from the in-process tier, logs it once, and uses Redis again after the restart", async () => {
    await get(a, `${LIST}/LOC1`);
    await get(b, `${LIST}/LOC1`);
    const warm = backend.senderCalls;

    // Requests in flight on both instances while redis-server stops. The traffic lasts 100 ms before the stop
    // and 300 ms after it, and at least ROUNDS requests of every lane on either side however slowly a loaded
    // machine answers: the counts below are the lanes', not the clock's.
    const ROUNDS = 3;
    const statuses: number[] = [];
    let running = true;
    let stopped = false;
    const lanes = [a, b].flatMap((gw) => [0, 1, 2].map((lane) => ({ gw, lane, before: 0, after: 0 })));
    const traffic = Promise.all(
      lanes.map(async (counts) => {
        const { gw, lane } = counts;
        for (let i = 0; running; i++) {
          const sentAfterStop = stopped;
          const path = i % 2 === 0 ? `${LIST}/LOC${1 + lane}` : `${LIST}?limit=2&offset=${(i + lane) % 4}`;
          statuses.push((await gw.http.get(path).set("Authorization", gw.auth[EMSP.id])).status);
          if (sentAfterStop) counts.after++;
          else counts.before++;
        }
      }),
    );
    /** at least `ms`, and until every lane has sent `enough` (a failing lane fails the wait) */
    const trafficFor = (ms: number, enough: (counts: (typeof lanes)[number]) => boolean) =>
      Promise.race([
        traffic,
        Promise.all([
          new Promise((resolve) => setTimeout(resolve, ms)),
          (async () => {
            while (!lanes.every(enough)) await new Promise((resolve) => setTimeout(resolve, 20));
          })(),
        ]),
      ]);
    await trafficFor(100, (counts) => counts.before >= ROUNDS);
    await redis.stop();
    stopped = true;
    await trafficFor(300, (counts) => counts.after >= ROUNDS);
    running = false;
    await traffic;
    expect(statuses.length).toBeGreaterThanOrEqual(2 * ROUNDS * lanes.length);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);

    // Redis is down: the in-process tier answers a repeated GET; changes still invalidate it.
    const calls = backend.senderCalls;
    await get(a, `${LIST}/LOC5`);
    await get(a, `${LIST}/LOC5`);
    expect(backend.senderCalls).toBe(calls + 1);
    await get(b, `${LIST}/LOC2`); // B caches LOC2 during the outage
    const renamed = testLocation(2, "Renamed while Redis was down");
    expect((await a.http.put("/ocpi/2.3.0/receiver/locations/DE/EMS/LOC9").set("Authorization", a.auth[EMSP.id]).send(testLocation(9, "x", { country_code: "DE", party_id: "EMS" }))).status).toBe(201);
    backend.store(renamed);
    await a.gateway.container.resolve(ChangeFeed).publish({ module: "locations", owner: OURS, path: ["LOC2"], kind: "upsert", object: renamed });
    const afterChange = backend.senderCalls;
    await get(a, `${LIST}/LOC5`);
    expect(backend.senderCalls).toBe(afterChange + 1);
    expect(warm).toBeGreaterThan(0);

    for (const gw of [a, b]) expect(logLines(gw.logs, UNAVAILABLE)).toHaveLength(1);

    await redis.restart();
    await waitForSharedTier();
    for (const gw of [a, b]) {
      expect(logLines(gw.logs, UNAVAILABLE)).toHaveLength(1);
      expect(logLines(gw.logs, BACK)).toHaveLength(1);
    }
    // The change A learnt of while Redis was down reached B once Redis was back.
    expect((await get(b, `${LIST}/LOC2`)).body.data.name).toBe("Renamed while Redis was down");
  });
});
