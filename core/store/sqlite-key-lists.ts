import type { KeyLists, ListedKey, RangeQuery, StoredPage } from "../contract/store";
import { sortKeyRange, type Db, type Statement } from "./sqlite-schema";

/**
 * The lists of keys (Store.keyLists) on SQLite: a key's place one row of `listed_keys` (no rowid, no value) and its
 * index by sort key; each list's count one row of `key_list_counts`, added to once per list by `add`, where a
 * collection's entry fires the count trigger for each row. Auditing a CDR lists it three times: these rows cost
 * about half of the same rows as entries (bench/RESULTS.md "CDR audit").
 */
const KEY_LISTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS listed_keys (
  list TEXT NOT NULL,
  key TEXT NOT NULL,
  sort_key INTEGER NOT NULL,
  PRIMARY KEY (list, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS listed_keys_by_sort ON listed_keys (list, sort_key, key);
CREATE TABLE IF NOT EXISTS key_list_counts (
  list TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Keys of one INSERT; the rest of a list in halving sizes, so few statements are prepared (as putAll). */
const ADD_ROWS = 64;

/** What the key lists use of the SQLite store: its prepared statements, its group commit and its read transaction. */
export interface SqliteKeyListsHost {
  stmt(sql: string): Statement;
  /** runs a write with the other writes of its turn (the store's group commit), in a transaction */
  written<R>(operation: () => R): Promise<R>;
  /** runs reads in one read transaction, so a count and its page come from one snapshot */
  read<R>(operation: () => R): R;
}

export class SqliteKeyLists implements KeyLists {
  constructor(
    db: Db,
    private readonly host: SqliteKeyListsHost,
  ) {
    db.exec(KEY_LISTS_SCHEMA);
  }

  async add(keys: readonly ListedKey[]): Promise<void> {
    if (!keys.length) return;
    const byList = new Map<string, unknown[]>();
    for (const { list, key, sortKey } of keys) {
      const params = byList.get(list);
      if (params) params.push(list, key, sortKey);
      else byList.set(list, [list, key, sortKey]);
    }
    await this.host.written(() => {
      for (const [list, params] of byList) {
        let added = 0;
        for (let row = 0, rows = ADD_ROWS, count = params.length / 3; row < count; ) {
          if (row + rows > count) rows /= 2;
          else {
            added += this.host.stmt(insertKeys(rows)).run(...params.slice(row * 3, (row + rows) * 3)).changes;
            row += rows;
          }
        }
        if (added > 0)
          this.host.stmt("INSERT INTO key_list_counts (list, n) VALUES (?, ?) ON CONFLICT (list) DO UPDATE SET n = n + excluded.n").run(list, added);
      }
    });
  }

  /**
   * Unbounded: the kept count and the page, read backwards from the end when it lies in the back half (a list's
   * newest keys), so at most half the list is stepped over; bounded: its range counted, as the entries' are.
   */
  async range(list: string, query: RangeQuery): Promise<StoredPage<string>> {
    return this.host.read((): StoredPage<string> => {
      const { where, params } = sortKeyRange("list", list, query);
      const total =
        query.from === undefined && query.to === undefined
          ? ((this.host.stmt("SELECT n FROM key_list_counts WHERE list = ?").get(list) as { n: number } | undefined)?.n ?? 0)
          : (this.host.stmt(`SELECT COUNT(*) AS n FROM listed_keys WHERE ${where}`).get(...params) as { n: number }).n;
      const offset = Math.max(0, query.offset);
      const count = Math.min(query.limit, total - offset);
      if (count <= 0) return { items: [], total };
      const keys = (sql: string, ...args: unknown[]) => (this.host.stmt(sql).raw(true).all(...args) as [string][]).map(([key]) => key);
      if (offset + count > total / 2)
        return { items: keys(`SELECT key FROM listed_keys WHERE ${where} ORDER BY sort_key DESC, key DESC LIMIT ? OFFSET ?`, ...params, count, total - offset - count).reverse(), total };
      return { items: keys(`SELECT key FROM listed_keys WHERE ${where} ORDER BY sort_key, key LIMIT ? OFFSET ?`, ...params, count, offset), total };
    });
  }
}

const insertKeys = (rows: number): string =>
  `INSERT INTO listed_keys (list, key, sort_key) VALUES ${Array(rows).fill("(?, ?, ?)").join(", ")} ON CONFLICT (list, key) DO NOTHING`;
