/** The `cache` section: the cache of sender GET answers (README "Cache"). */
import { z } from "zod";
import { DEFAULT_CACHE_CONFIG, DEFAULT_CACHE_TTL_SECONDS } from "../types";
import { MESSAGES } from "../schema-messages";
import { bool, decimal, int, isUrlWith, msg, nullAsAbsent } from "./blocks";
import { moduleIdKey } from "./modules";
import { redisNodesSchema } from "./store";

export const cacheSchema = nullAsAbsent(
  z
    .strictObject({
      // Listed modules override the defaults; the others keep theirs.
      ttl_seconds: nullAsAbsent(z.record(moduleIdKey, decimal(0, 86400, MESSAGES.cacheTtl)).optional()).transform((ttl) => ({
        ...DEFAULT_CACHE_TTL_SECONDS,
        ...ttl,
      })),
      max_entries: int(1, 10_000_000, MESSAGES.cacheMaxEntries).default(DEFAULT_CACHE_CONFIG.max_entries),
      redis: bool(MESSAGES.cacheRedis).default(DEFAULT_CACHE_CONFIG.redis),
      redis_url: z
        .string({ error: msg(MESSAGES.redisUrl) })
        .refine((s) => isUrlWith(s, ["redis:", "rediss:"]) !== undefined, { error: MESSAGES.redisUrl })
        .optional(),
      redis_nodes: redisNodesSchema.optional(),
    })
    .refine((cache) => !(cache.redis_url && cache.redis_nodes), {
      path: ["redis_nodes"],
      error: "give either redis_url or redis_nodes, not both",
    })
    .prefault({}),
);
