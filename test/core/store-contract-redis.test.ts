import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { RedisStore } from "../../core/store/redis-store";
import { CONTRACT_COMMAND_TIMEOUT_MS, describeStoreContract } from "./store-contract/contract";
import { scriptKeysRule } from "./store-contract/script-keys";

const redisUrl = process.env.REDIS_URL;
if (!redisUrl) throw new Error("REDIS_URL is not set; test/support/redis.global-setup.ts should have set it");
const redisPrefix = `test:store-contract:${randomUUID()}:`;

describeStoreContract("RedisStore", {
  open: () => RedisStore.connect({ target: { url: redisUrl }, keyPrefix: redisPrefix, commandTimeoutMs: CONTRACT_COMMAND_TIMEOUT_MS }),
  persistent: true,
});

// When REDIS_URL points at a shared server, leave nothing of ours behind.
afterAll(async () => {
  const redis = new Redis(redisUrl);
  try {
    const keys: string[] = [];
    const stream = redis.scanStream({ match: `${redisPrefix}*`, count: 500 });
    for await (const batch of stream) keys.push(...(batch as string[]));
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
  } finally {
    await redis.quit();
  }
});

describe("RedisStore scripts", () => {
  let store: RedisStore;
  beforeEach(async () => {
    store = await RedisStore.connect({ target: { url: redisUrl }, keyPrefix: redisPrefix, commandTimeoutMs: CONTRACT_COMMAND_TIMEOUT_MS });
  });
  afterEach(async () => store.close());
  scriptKeysRule(() => store, async () => [redisUrl], `script-keys-${randomUUID()}`);
});
