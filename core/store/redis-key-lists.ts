import type { KeyLists, ListedKey, RangeQuery, StoredPage } from "../contract/store";

/** Keys a script lists at once: a few hundred, so Redis is not held up for long (as putAll's chunks). */
const LIST_CHUNK = 500;

/**
 * A page of a list's keys (KEYS[1]) and its count in one atomic read: unbounded (ARGV[1] and ARGV[2] -inf and
 * +inf) by rank and ZCARD, bounded by score and ZCOUNT. Keys of one score are ordered by the key, as the store's.
 */
const LIST_RANGE_LUA = `
local total
if ARGV[1] == '-inf' and ARGV[2] == '+inf' then total = redis.call('ZCARD', KEYS[1]) else total = redis.call('ZCOUNT', KEYS[1], ARGV[1], ARGV[2]) end
local limit = tonumber(ARGV[4])
if limit <= 0 then return { total } end
local keys
if ARGV[1] == '-inf' and ARGV[2] == '+inf' then keys = redis.call('ZRANGE', KEYS[1], ARGV[3], tonumber(ARGV[3]) + limit - 1)
else keys = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2], 'LIMIT', ARGV[3], limit) end
table.insert(keys, 1, total)
return keys`;

/** What the key lists use of the Redis store: its key names, its write (WAIT on a cluster) and its reads. */
export interface RedisKeyListsHost {
  /** the list's sorted set, under the list's own hash tag */
  keyOf(list: string): string;
  /** runs the store's write script `storeListKeys` (core/store/redis-scripts.ts) as every write is run */
  listKeys(key: string, args: readonly (string | number)[]): Promise<unknown>;
  /** runs a read-only script defined once under `name` */
  read<R>(name: string, lua: string, keys: readonly string[], args: readonly (string | number)[]): Promise<R>;
  /** the bounds, offset and limit of a query as the range scripts take them */
  rangeArgs(query: RangeQuery): [min: string, max: string, offset: number, limit: number];
}

/**
 * The lists of keys (Store.keyLists) on one Redis or a Redis Cluster: a list is a sorted set of its keys by sort
 * key (ZADD NX, so a key once listed keeps its place), its count the set's own.
 */
export class RedisKeyLists implements KeyLists {
  constructor(private readonly host: RedisKeyListsHost) {}

  async add(keys: readonly ListedKey[]): Promise<void> {
    const byList = new Map<string, (string | number)[]>();
    for (const { list, key, sortKey } of keys) {
      const args = byList.get(list);
      if (args) args.push(sortKey, key);
      else byList.set(list, [sortKey, key]);
    }
    await Promise.all(
      [...byList].map(async ([list, args]) => {
        for (let i = 0; i < args.length; i += 2 * LIST_CHUNK) await this.host.listKeys(this.host.keyOf(list), args.slice(i, i + 2 * LIST_CHUNK));
      }),
    );
  }

  async range(list: string, query: RangeQuery): Promise<StoredPage<string>> {
    const [total, ...items] = await this.host.read<[number, ...string[]]>("storeKeyListRange", LIST_RANGE_LUA, [this.host.keyOf(list)], this.host.rangeArgs(query));
    return { items, total };
  }
}
