import type { Cluster, Redis } from "ioredis";
import type { RedisClient } from "./redis-connection";

/** Keys a SCAN step asks a node for; UNLINKs sent in one pipeline (one key each: a cluster refuses keys of several slots in one command). */
const SCAN_COUNT = 1000;

/**
 * Removes, once per key prefix, what earlier releases of the store wrote that nothing reads now: the sorted sets of
 * Store.keyLists (`<prefix>{<list>}:listed`, written by the CDR audit until 2026-12-07), found by SCAN on one Redis or
 * on every master of a cluster and unlinked; then a marker key says it is done, so later opens do not scan again.
 */
export const removeEarlierReleasesKeys = async (redis: RedisClient, prefix: string): Promise<void> => {
  const done = `${prefix}store:earlier-key-lists-removed`;
  if ((await redis.exists(done)) === 1) return;
  const listed = new RegExp(`^${escapeRegExp(prefix)}\\{[^{}]*\\}:listed$`);
  const match = `${escapeGlob(prefix)}{*}:listed`;
  const nodes: Redis[] = redis.isCluster ? (redis as Cluster).nodes("master") : [redis as Redis];
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", match, "COUNT", SCAN_COUNT);
      cursor = next;
      const removed = keys.filter((key) => listed.test(key));
      if (removed.length) {
        const pipeline = node.pipeline();
        for (const key of removed) pipeline.unlink(key);
        const failed = (await pipeline.exec())?.find(([err]) => err);
        if (failed) throw failed[0];
      }
    } while (cursor !== "0");
  }
  await redis.set(done, new Date().toISOString());
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** Redis's glob patterns give *, ?, [ ] and \ a meaning */
const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, "\\$&");
