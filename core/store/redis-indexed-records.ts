import type { IndexedQuery, IndexedRecord, IndexedRecords, RangeQuery, RecordIndexes, StoredPage } from "../contract/store";
import { checkedIndexes, indexValue, selectedIndex } from "./indexed-records";
import { encode, parseStored } from "./stored-value";

/** Records a script writes at once: a few hundred, so Redis is not held up for long (as putAll's chunks). */
const WRITE_CHUNK = 500;
/** Tries of a chunk whose records other writers keep moving to index sets it was not handed (as RedisStore.update's). */
const MAX_WRITE_ATTEMPTS = 100;

/** What the indexed records use of the Redis store: its key names, its write (WAIT on a cluster) and its reads. */
export interface RedisIndexedRecordsHost {
  /** the collection's keys' common start, under the collection's hash tag (one cluster slot) */
  keyOf(collection: string): string;
  /** runs the store's write script `storeWriteRecords` (core/store/redis-scripts.ts) over `keys`, as every write is run */
  writeRecords(keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** HGET of a hash's field */
  get(hash: string, key: string): Promise<string | null>;
  /** the store's range script over a values hash and a sorted set of its keys: [total, ...values] */
  range(values: string, index: string, query: RangeQuery): Promise<[number, ...string[]]>;
}

/**
 * The indexed records (Store.indexedRecords) on one Redis or a Redis Cluster: a collection's values in one hash, its
 * keys by sort key in one sorted set, and in one sorted set per value of each index, the sets each record is in in one
 * more hash (so that a record replaced leaves them); every key under the collection's hash tag, so a chunk of records
 * and all their places are one atomic script, which touches only the keys it is handed (as Redis Cluster and key ACLs
 * require).
 */
export class RedisIndexedRecords implements IndexedRecords {
  constructor(private readonly host: RedisIndexedRecordsHost) {}

  add<T>(collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): Promise<number> {
    return this.write("add", collection, indexes, records);
  }

  async put<T>(collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): Promise<void> {
    await this.write("put", collection, indexes, records);
  }

  private async write<T>(mode: "add" | "put", collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): Promise<number> {
    checkedIndexes(collection, indexes);
    const base = this.host.keyOf(collection);
    // every value encoded before the first is written
    const encoded = records.map(({ key, sortKey, fields, value }) => {
      const json = encode(value);
      const places = indexes.flatMap((index, i) => {
        const held = indexValue(index, fields);
        return held === undefined ? [] : [indexKey(base, i, held)];
      });
      return { key, sortKey, json, places };
    });
    let written = 0;
    for (let start = 0; start < encoded.length; start += WRITE_CHUNK) {
      // KEYS: the values hash, the collection's sorted set, the hash of each record's sets, then each index value's
      // sorted set once (and those the records are in now, if the script names them); ARGV: the mode, then per record its key, JSON, sort key, how many index sets list it, their positions in KEYS
      const keys = [`${base}:values`, `${base}:all`, `${base}:places`];
      const position = new Map<string, number>();
      const args: (string | number)[] = [mode];
      for (const { key, sortKey, json, places } of encoded.slice(start, start + WRITE_CHUNK)) {
        args.push(key, json, sortKey, places.length);
        for (const place of places) {
          let at = position.get(place);
          if (at === undefined) position.set(place, (at = keys.push(place)));
          args.push(at);
        }
      }
      written += await this.writeChunk(keys, args);
    }
    return written;
  }

  /**
   * One chunk by the write script, which touches only the keys it is handed: the index sets its records are in now are
   * learnt from a refusal that names them (nothing written), and handed with the next try. A concurrent writer may move
   * a record again meanwhile; each try is atomic, so the records are always in the sets of their last value.
   */
  private async writeChunk(keys: string[], args: readonly (string | number)[]): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const [written, ...undeclared] = (await this.host.writeRecords(keys, args)) as [number, ...string[]];
      if (undeclared.length === 0) return written;
      if (attempt === MAX_WRITE_ATTEMPTS) throw new Error(`indexed records: ${keys[0]}: still moved by other writers after ${attempt} tries`);
      keys.push(...undeclared);
    }
  }

  async get<T>(collection: string, key: string): Promise<T | undefined> {
    const json = await this.host.get(`${this.host.keyOf(collection)}:values`, key);
    return json === null ? undefined : parseStored<T>(json);
  }

  async range<T>(collection: string, indexes: RecordIndexes, query: IndexedQuery): Promise<StoredPage<T>> {
    const selected = selectedIndex(collection, indexes, query.where);
    const base = this.host.keyOf(collection);
    const [total, ...items] = await this.host.range(`${base}:values`, selected ? indexKey(base, selected.index, selected.value) : `${base}:all`, query);
    return { items: items.map((json) => JSON.parse(json) as T), total };
  }
}

/** The sorted set of the records whose value in the collection's i-th index is `value`. */
const indexKey = (base: string, index: number, value: string): string => `${base}:ix${index}:${value}`;
