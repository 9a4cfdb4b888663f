/** The `store` section: SQLite, Redis or a Redis Cluster. */
import { z } from "zod";
import { MAX_GENERATION_LEASE_MS } from "../types";
import { MESSAGES } from "../schema-messages";
import { int, isUrlWith, msg, nullAsAbsent } from "./blocks";

export const DEFAULT_SQLITE_PATH = "./data/gateway.db";
export const DEFAULT_REDIS_KEY_PREFIX = "ocpi:";

const sqliteStoreSchema = z.strictObject({
  type: z.literal("sqlite"),
  path: z.string({ error: msg(MESSAGES.sqlitePath) }).min(1, { error: MESSAGES.sqlitePath }).default(DEFAULT_SQLITE_PATH),
  busy_timeout_ms: int(1, 60_000, MESSAGES.storeTimeout).optional(),
});

const redisStoreSchema = z.strictObject({
  type: z.literal("redis"),
  url: z
    .string({ error: msg(MESSAGES.redisUrl) })
    .refine((s) => isUrlWith(s, ["redis:", "rediss:"]) !== undefined, { error: MESSAGES.redisUrl }),
  key_prefix: z
    .string({ error: msg(MESSAGES.keyPrefix) })
    .max(100, { error: MESSAGES.keyPrefix })
    .default(DEFAULT_REDIS_KEY_PREFIX),
  command_timeout_ms: int(1, 60_000, MESSAGES.storeTimeout).optional(),
  generation_lease_ms: int(0, MAX_GENERATION_LEASE_MS, MESSAGES.generationLease).optional(),
});

export const redisNodesSchema = z
  .array(
    z.string({ error: msg(MESSAGES.redisUrl) }).refine((s) => isUrlWith(s, ["redis:", "rediss:"]) !== undefined, { error: MESSAGES.redisUrl }),
    { error: msg(MESSAGES.redisNodes) },
  )
  .min(1, { error: MESSAGES.redisNodes });

const redisClusterStoreSchema = redisStoreSchema.omit({ type: true, url: true, generation_lease_ms: true }).extend({
  type: z.literal("redis-cluster"),
  nodes: redisNodesSchema,
  replica_ack_timeout_ms: int(1, 60_000, MESSAGES.storeTimeout).optional(),
});

export const storeSchema = nullAsAbsent(
  z
    .discriminatedUnion("type", [sqliteStoreSchema, redisStoreSchema, redisClusterStoreSchema])
    .default({ type: "sqlite", path: DEFAULT_SQLITE_PATH }),
);
