/**
 * What earlier releases of the store wrote that nothing reads now (Store.keyLists, taken out on 2026-12-07: SQLite
 * tables `listed_keys` and `key_list_counts`, Redis sorted sets `<prefix>{<list>}:listed`) is removed when this
 * release opens the store, and nothing else with it. The old data is written by hand, as that release wrote it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { Cluster, Redis } from "ioredis";
import { SqliteStore } from "../../core/store/sqlite-store";
import { RedisStore } from "../../core/store/redis-store";
import { startRedisCluster, type RedisCluster } from "../support/redis-cluster";

const KEY_LISTS_OF_THE_RELEASE_BEFORE = `
CREATE TABLE listed_keys (list TEXT NOT NULL, key TEXT NOT NULL, sort_key INTEGER NOT NULL, PRIMARY KEY (list, key)) WITHOUT ROWID;
CREATE INDEX listed_keys_by_sort ON listed_keys (list, sort_key, key);
CREATE TABLE key_list_counts (list TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO listed_keys VALUES ('cdrs:audit:partner:p1', 'received/NL/CPO/c1', 1);
INSERT INTO key_list_counts VALUES ('cdrs:audit:partner:p1', 1);`;

/** the audit's three key lists of the release before, for one partner */
const LISTS = ["cdrs:audit:partner:p1", "cdrs:audit:partner-verdict:p1:match", "cdrs:audit:verdict:match"];

let tmpDir: string;
beforeEach(() => {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "earlier-releases-"));
});
afterEach(() => fs.rmSync(tmpDir, { recursive: true, force: true }));

describe("a SQLite store written by the release with key lists", () => {
  it("loses the key lists' tables when opened, and keeps its entries", async () => {
    const file = path.join(tmpDir, "state.db");
    const first = SqliteStore.open(file);
    await first.put("kept", "a", { id: "a" }, 1);
    await first.close();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Database = require("libsql");
    const old = new Database(file);
    old.exec(KEY_LISTS_OF_THE_RELEASE_BEFORE);
    old.close();
    const store = SqliteStore.open(file);
    try {
      expect(await store.get("kept", "a")).toEqual({ id: "a" });
    } finally {
      await store.close();
    }
    const look = new Database(file);
    try {
      expect(look.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%list%'").all()).toEqual([]);
    } finally {
      look.close();
    }
  });
});

/** Writes the key lists of the release before, a key of this release whose name also ends in `:listed`, and another prefix's list. */
const writeOldKeys = async (redis: Redis | Cluster, prefix: string, other: string): Promise<{ gone: string[]; kept: string[] }> => {
  const gone = LISTS.map((list) => `${prefix}{${list}}:listed`);
  const kept = [`${prefix}{cdrs:audits}:records:ix0:p}:listed`, `${other}{${LISTS[0]}}:listed`];
  for (const key of [...gone, ...kept]) await redis.zadd(key, 1, "received/NL/CPO/c1");
  await redis.hset(`${prefix}{kept}:v`, "a", JSON.stringify({ id: "a" }));
  return { gone, kept };
};

const exist = (redis: Redis | Cluster, keys: readonly string[]) => Promise.all(keys.map(async (key) => (await redis.exists(key)) === 1));

/** Opens the store (`open`) over the old keys: the key lists' sets gone, every other key and value kept. */
const expectListsGoneWhenOpened = async (redis: Redis | Cluster, open: () => Promise<RedisStore>, gone: readonly string[], kept: readonly string[]) => {
  const store = await open();
  try {
    expect(await exist(redis, gone)).toEqual([false, false, false]);
    expect(await exist(redis, kept)).toEqual([true, true]);
    expect(await store.get("kept", "a")).toEqual({ id: "a" });
  } finally {
    await store.close();
  }
};

describe("a Redis store written by the release with key lists", () => {
  it("loses the key lists' sets when opened, once, and keeps every other key", async () => {
    const prefix = `test:earlier:${randomUUID()}:`;
    const other = `test:earlier-other:${randomUUID()}:`;
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      const { gone, kept } = await writeOldKeys(redis, prefix, other);
      await expectListsGoneWhenOpened(redis, () => RedisStore.connect({ target: { url: process.env.REDIS_URL! }, keyPrefix: prefix }), gone, kept);
      // once: a list written after that is not looked for again
      await redis.zadd(gone[0], 1, "k");
      await (await RedisStore.connect({ target: { url: process.env.REDIS_URL! }, keyPrefix: prefix })).close();
      expect(await exist(redis, gone)).toEqual([true, false, false]);
    } finally {
      for (const key of await redis.keys(`${prefix}*`)) await redis.unlink(key);
      for (const key of await redis.keys(`${other}*`)) await redis.unlink(key);
      redis.disconnect();
    }
  });
});

describe("a Redis Cluster store written by the release with key lists", () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => cluster?.stop(), 30_000);

  it("loses the key lists' sets on every master when opened, and keeps every other key", async () => {
    const prefix = "earlier:";
    const redis = new Cluster([{ host: "127.0.0.1", port: cluster.ports[0] }]);
    try {
      const { gone, kept } = await writeOldKeys(redis, prefix, "other:");
      // the lists lie on more than one master
      expect(new Set(await Promise.all(gone.map((key) => cluster.masterOf(key)))).size).toBeGreaterThan(1);
      await expectListsGoneWhenOpened(redis, () => RedisStore.connect({ target: { nodes: cluster.urls.slice(0, 2) }, keyPrefix: prefix }), gone, kept);
    } finally {
      redis.disconnect();
    }
  });
});
