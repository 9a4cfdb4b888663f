import "reflect-metadata";
import { ChangeFeed } from "../../core/contract/change-feed";
import { parseConfig } from "../../config/load-config";
import { ConfigError } from "../../config/load-config";
import { maskSecrets } from "../../config/mask-secrets";
import { DEFAULT_CACHE_TTL_SECONDS } from "../../config/types";
import { removeTempDirs } from "../support/gateway-config";
import { LocationsBackend, partner, startCacheGateway, testLocation, type CacheGateway } from "../support/counting-locations";

/**
 * Issue #5, Cache, on the in-process tier: sender GETs read through the
 * cache, so the backend (a counting test adapter) is reached once per
 * answer until a change the gateway learns of, or the TTL, ends it.
 */

const LIST = "/ocpi/2.3.0/sender/locations";
const EMSP_230 = partner("emsp230", "2.3.0", "DE", "EMS");
const EMSP_221 = partner("emsp221", "2.2.1", "DE", "TWO");
const EMSP_211 = partner("emsp211", "2.1.1", "BE", "OLD");
const OURS = { country_code: "NL", party_id: "GWY" };

type Json = Record<string, any>;

const gateways: CacheGateway[] = [];

const start = async (backend: LocationsBackend, cache?: Record<string, unknown>): Promise<CacheGateway> => {
  const gw = await startCacheGateway({ backend, partners: [EMSP_230, EMSP_221, EMSP_211], cache });
  gateways.push(gw);
  return gw;
};

const seeded = (count: number, delayMs = 0): LocationsBackend => {
  const backend = new LocationsBackend(delayMs);
  for (let n = 1; n <= count; n++) backend.store(testLocation(n));
  return backend;
};

const get = async (gw: CacheGateway, path: string, who = EMSP_230.id) => {
  const response = await gw.http.get(path).set("Authorization", gw.auth[who]);
  expect(response.status).toBe(200);
  return response;
};

afterAll(async () => {
  for (const gw of gateways) await gw.close();
  removeTempDirs();
});

describe("read-through", () => {
  it("a second identical GET does not reach the adapter, for lists and single objects", async () => {
    const backend = seeded(3);
    const gw = await start(backend);

    const first = await get(gw, `${LIST}?limit=2`);
    const second = await get(gw, `${LIST}?limit=2`);
    expect(backend.senderCalls).toBe(1);
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.data.map((l: Json) => l.id)).toEqual(["LOC1", "LOC2"]);

    await get(gw, `${LIST}/LOC3`);
    const evse = await get(gw, `${LIST}/LOC3/EVSE3`);
    await get(gw, `${LIST}/LOC3`);
    await get(gw, `${LIST}/LOC3/EVSE3`);
    expect(backend.senderCalls).toBe(3);
    expect(evse.body.data.uid).toBe("EVSE3");
  });

  it("different list parameters are different entries; equivalent spellings share one", async () => {
    const backend = seeded(3);
    const gw = await start(backend);
    await get(gw, `${LIST}?limit=2`);
    await get(gw, `${LIST}?limit=2&offset=1`);
    await get(gw, `${LIST}?limit=2&date_from=2026-01-01T00:00:02Z`);
    expect(backend.senderCalls).toBe(3);
    await get(gw, `${LIST}?offset=1&limit=2`);
    await get(gw, `${LIST}?limit=2&date_from=2026-01-01T00:00:02.000Z`);
    expect(backend.senderCalls).toBe(3);
  });

  it("concurrent misses of one answer share one adapter call", async () => {
    const backend = seeded(3, 50);
    const gw = await start(backend);
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(gw, `${LIST}?limit=3`)));
    expect(backend.senderCalls).toBe(1);
    for (const answer of answers) expect(answer.body.data).toHaveLength(3);
  });

  it("errors are not cached: an unknown Location reaches the adapter every time", async () => {
    const backend = seeded(1);
    const gw = await start(backend);
    for (let i = 0; i < 2; i++) {
      const response = await gw.http.get(`${LIST}/NOPE`).set("Authorization", gw.auth[EMSP_230.id]);
      expect(response.status).toBe(404);
    }
    expect(backend.senderCalls).toBe(2);
  });

  it("one cached entry gives every version and partner its own translation, paging headers included", async () => {
    const backend = seeded(3);
    const gw = await start(backend);

    const v230 = await get(gw, `${LIST}?limit=2`, EMSP_230.id);
    const v211 = await get(gw, "/ocpi/2.1.1/sender/locations?limit=2", EMSP_211.id);
    const v221 = await get(gw, "/ocpi/2.2.1/sender/locations?limit=2", EMSP_221.id);
    const again230 = await get(gw, `${LIST}?limit=2`, EMSP_230.id);
    expect(backend.senderCalls).toBe(1);

    for (const [response, version] of [[v230, "2.3.0"], [v211, "2.1.1"], [v221, "2.2.1"], [again230, "2.3.0"]] as const) {
      expect(response.headers["x-total-count"]).toBe("3");
      expect(response.headers["link"]).toBe(`<http://127.0.0.1:9/ocpi/${version}/sender/locations?offset=2&limit=2>; rel="next"`);
    }
    const connector = (r: { body: Json }) => r.body.data[0].evses[0].connectors[0];
    expect(v230.body.data[0].help_phone).toBe("+31301234567");
    expect(connector(v230)).toMatchObject({ max_voltage: 230, max_amperage: 32 });
    expect(v211.body.data[0].help_phone).toBeUndefined();
    expect(connector(v211)).toMatchObject({ voltage: 230, amperage: 32 });
    expect(connector(v211).max_voltage).toBeUndefined();
    expect(v221.body.data[0].help_phone).toBeUndefined();
    expect(connector(v221)).toMatchObject({ max_voltage: 230 });
    // the translations left the cached canonical answer as it was
    expect(again230.body.data).toEqual(v230.body.data);
  });
});

describe("invalidation", () => {
  it("a receiver PUT of the module invalidates the cached answers", async () => {
    const backend = seeded(2);
    const gw = await start(backend);
    await get(gw, `${LIST}?limit=2`);
    await get(gw, `${LIST}/LOC1`);
    expect(backend.senderCalls).toBe(2);

    const pushed = testLocation(7, "Pushed", { country_code: "DE", party_id: "EMS" });
    const put = await gw.http.put("/ocpi/2.3.0/receiver/locations/DE/EMS/LOC7").set("Authorization", gw.auth[EMSP_230.id]).send(pushed);
    expect(put.status).toBe(201);

    await get(gw, `${LIST}?limit=2`);
    await get(gw, `${LIST}/LOC1`);
    expect(backend.senderCalls).toBe(4);
  });

  it("a ChangeFeed event invalidates the answers of its module and owner, and only those", async () => {
    const backend = seeded(2);
    const gw = await start(backend);
    const changes = gw.gateway.container.resolve(ChangeFeed);
    const before = await get(gw, `${LIST}/LOC1`);
    expect(before.body.data.name).toBe("Site 1");

    // The backend changed without telling: the cache still answers the old object.
    backend.store(testLocation(1, "Renamed"));
    expect((await get(gw, `${LIST}/LOC1`)).body.data.name).toBe("Site 1");

    await changes.publish({ module: "tariffs", owner: OURS, path: ["T1"], kind: "upsert", object: {} });
    await changes.publish({ module: "locations", owner: { country_code: "DE", party_id: "XYZ" }, path: ["LOC1"], kind: "upsert", object: {} });
    expect((await get(gw, `${LIST}/LOC1`)).body.data.name).toBe("Site 1");
    expect(backend.senderCalls).toBe(1);

    await changes.publish({ module: "locations", owner: OURS, path: ["LOC1"], kind: "upsert", object: testLocation(1, "Renamed") });
    expect((await get(gw, `${LIST}/LOC1`)).body.data.name).toBe("Renamed");
    expect(backend.senderCalls).toBe(2);
  });

  it("an entry expires after the module's TTL", async () => {
    const backend = seeded(1);
    const gw = await start(backend, { ttl_seconds: { locations: 0.2 } });
    await get(gw, `${LIST}/LOC1`);
    await get(gw, `${LIST}/LOC1`);
    expect(backend.senderCalls).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await get(gw, `${LIST}/LOC1`);
    expect(backend.senderCalls).toBe(2);
  });

  it("a TTL of 0 turns the cache off for the module", async () => {
    const backend = seeded(1);
    const gw = await start(backend, { ttl_seconds: { locations: 0 } });
    await get(gw, `${LIST}/LOC1`);
    await get(gw, `${LIST}/LOC1`);
    expect(backend.senderCalls).toBe(2);
  });
});

describe("cache config", () => {
  const yaml = (cache: string) => `
server: { public_url: "http://127.0.0.1:9" }
parties: [{ country_code: NL, party_id: GWY, role: CPO, business_details: { name: X } }]
${cache}
`;
  const errorsOf = (text: string): string[] => {
    try {
      parseConfig(text, {}, "<test>");
    } catch (error) {
      if (error instanceof ConfigError) return error.errors;
      throw error;
    }
    throw new Error("config was accepted");
  };

  it("fills in the defaults; listed TTLs override them per module", () => {
    expect(parseConfig(yaml(""), {}).cache).toEqual({ ttl_seconds: DEFAULT_CACHE_TTL_SECONDS, max_entries: 1000, redis: true });
    const config = parseConfig(yaml("cache: { ttl_seconds: { locations: 5, terminals: 0.5 }, max_entries: 50, redis: false }"), {});
    expect(config.cache).toEqual({ ttl_seconds: { ...DEFAULT_CACHE_TTL_SECONDS, locations: 5, terminals: 0.5 }, max_entries: 50, redis: false });
  });

  it("names the path and the rule of a wrong value", () => {
    expect(errorsOf(yaml("cache: { ttl_seconds: { locations: -1 }, max_entries: 0, redis: maybe, redis_url: http://x, ttl: 3 }"))).toEqual(
      expect.arrayContaining([
        "cache.ttl_seconds.locations: must be a number of seconds between 0 and 86400 (0: not cached)",
        "cache.max_entries: must be an integer between 1 and 10000000",
        "cache.redis: must be true or false",
        "cache.redis_url: must be a redis:// or rediss:// URL",
        "cache.ttl: unknown key (allowed here: ttl_seconds, max_entries, redis, redis_url, redis_nodes)",
      ]),
    );
  });

  it("masks the password of cache.redis_url", () => {
    const config = parseConfig(yaml("cache: { redis_url: 'redis://cache:s3cret-pw@127.0.0.1:6379/1' }"), {});
    expect(JSON.stringify(maskSecrets(config))).not.toContain("s3cret-pw");
    expect(maskSecrets(config).cache?.redis_url).toBe("redis://cache:***@127.0.0.1:6379/1");
  });
});
