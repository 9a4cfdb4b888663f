import { MAX_RECORD_INDEXES, type IndexedQuery, type IndexedRecord, type IndexedRecords, type RecordIndexes, type StoredPage } from "../contract/store";
import { inChunks, sortKeyRange, type Db, type Statement } from "./sqlite-schema";
import { checkedIndexes, indexValue, selectedIndex } from "./indexed-records";
import { encode, parseStored } from "./stored-value";

/**
 * The indexed records (Store.indexedRecords) on SQLite: a record one row of `indexed_records`, its value in its
 * collection's i-th index in column `ix<i>` (each column indexed with the sort key, only where it holds a value);
 * the counts in `indexed_record_counts`, one row per collection (index -1) and per index value, changed once per
 * write from the index columns of the rows it replaces and writes (add: RETURNING; put: its parameters, over rows
 * without index values nothing read, else the replaced rows read before: counted, and read one by one only when one of
 * them holds a value), not by a trigger a row.
 * Auditing a CDR rewrites its queued record here in place, where its audit entry and three key-list rows were four
 * rows (bench/RESULTS.md "CDR audit").
 */
const columns = Array.from({ length: MAX_RECORD_INDEXES }, (_, i) => `ix${i}`);
const INDEXED_RECORDS_SCHEMA = `
CREATE TABLE IF NOT EXISTS indexed_records (
  collection TEXT NOT NULL,
  key TEXT NOT NULL,
  sort_key INTEGER NOT NULL,
  ${columns.map((column) => `${column} TEXT`).join(",\n  ")},
  value TEXT NOT NULL,
  PRIMARY KEY (collection, key)
);
CREATE INDEX IF NOT EXISTS indexed_records_by_sort ON indexed_records (collection, sort_key, key);
${columns.map((column) => `CREATE INDEX IF NOT EXISTS indexed_records_by_${column} ON indexed_records (collection, ${column}, sort_key, key) WHERE ${column} IS NOT NULL;`).join("\n")}
CREATE TABLE IF NOT EXISTS indexed_record_counts (
  collection TEXT NOT NULL,
  ix INTEGER NOT NULL,
  value TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (collection, ix, value)
) WITHOUT ROWID;
`;

const PARAMS = 4 + MAX_RECORD_INDEXES;
/** the count of every record of a collection: index -1, no value */
const ALL = -1;

/** What the indexed records use of the SQLite store: its prepared statements, its group commit, its reads. */
export interface SqliteIndexedRecordsHost {
  stmt(sql: string): Statement;
  /** runs a write with the other writes of its turn (the store's group commit), in a transaction */
  written<R>(operation: () => R): Promise<R>;
  /** runs reads in one read transaction, so a count and its page come from one snapshot */
  read<R>(operation: () => R): R;
  /** runs one read, a file that cannot take it now answered as the store's other reads are */
  readOne<R>(operation: () => R): R;
}

export class SqliteIndexedRecords implements IndexedRecords {
  constructor(
    db: Db,
    private readonly host: SqliteIndexedRecordsHost,
  ) {
    db.exec(INDEXED_RECORDS_SCHEMA);
  }

  async add<T>(collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): Promise<number> {
    if (!records.length) return 0;
    const params = encoded(collection, indexes, records);
    return this.host.written(() => {
      const counts = new Counts();
      inChunks(records.length, (start, rows) => counts.rows(this.host.stmt(writeRecords(rows, "NOTHING")).raw(true).all(...params.slice(start * PARAMS, (start + rows) * PARAMS)), 1));
      counts.write(this.host, collection);
      return counts.added;
    });
  }

  async put<T>(collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): Promise<void> {
    // the last of each key: one row a key, so what a key had is taken off its counts once
    const last = [...new Map(records.map((record) => [record.key, record])).values()];
    if (!last.length) return;
    const params = encoded(collection, indexes, last);
    await this.host.written(() => {
      const counts = new Counts();
      let highest = this.highestRowid();
      inChunks(last.length, (start, rows) => {
        const chunk = params.slice(start * PARAMS, (start + rows) * PARAMS);
        // over rows without index values (a queue's) or none: one statement, nothing read before it
        if (highest <= Number.MAX_SAFE_INTEGER - rows && this.overUnindexed(rows, chunk)) {
          const after = this.highestRowid();
          counts.unindexed(rows - (after - highest), -1);
          highest = after;
          return;
        }
        const keys = last.slice(start, start + rows).map((record) => record.key);
        // the replaced rows counted in one answer; their index columns read only when one of them holds a value
        const [held, ...indexed] = this.host.stmt(heldOf(rows)).raw(true).get(collection, ...keys) as number[];
        if (indexed.some((n) => n > 0)) counts.rows(this.host.stmt(placesOf(rows)).raw(true).all(collection, ...keys), -1);
        else counts.unindexed(held, -1);
        this.host.stmt(writeRecords(rows, "UPDATE")).run(...chunk);
        highest = this.highestRowid();
      });
      // every record is written: its index values counted from its parameters, none read back
      counts.written(params);
      counts.write(this.host, collection);
    });
  }

  /**
   * Writes `rows` records (`chunk`: their parameters) if none of their keys holds a row with an index value, and
   * answers whether it did: a row with one fails the statement (NOT NULL of its value), which SQLite takes back
   * whole, leaving the transaction as it was before it. The rows it inserted are the new highest rowids (SQLite
   * gives a row the highest rowid plus one below the largest integer), the others replaced rows without index
   * values: no read of the replaced rows before the write, which cost about 2 µs a record (bench/RESULTS.md "CDR audit").
   */
  private overUnindexed(rows: number, chunk: unknown[]): boolean {
    try {
      this.host.stmt(overUnindexedRows(rows)).run(...chunk);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_NOTNULL") return false;
      throw error;
    }
  }

  /** The highest rowid of the records of every collection (0 when there is none). */
  private highestRowid(): number {
    return ((this.host.stmt("SELECT max(rowid) FROM indexed_records").raw(true).get() as [number | null])[0] ?? 0);
  }

  async get<T>(collection: string, key: string): Promise<T | undefined> {
    const row = this.host.readOne(() => this.host.stmt("SELECT value FROM indexed_records WHERE collection = ? AND key = ?").raw(true).get(collection, key) as [string] | undefined);
    return row === undefined ? undefined : parseStored<T>(row[0]);
  }

  /**
   * Unbounded: the kept count and the page, read backwards from the end when it lies in the back half (the newest
   * records), so at most half the selection is stepped over; bounded: its range counted. The page's values joined
   * by SQLite into one JSON array text, parsed once (as the store's range).
   */
  async range<T>(collection: string, indexes: RecordIndexes, query: IndexedQuery): Promise<StoredPage<T>> {
    const selected = selectedIndex(collection, indexes, query.where);
    const page = this.host.read((): { json: string; total: number } => {
      const range = sortKeyRange(collection, query);
      const where = selected ? `${range.where} AND ix${selected.index} = ?` : range.where;
      const params = selected ? [...range.params, selected.value] : range.params;
      const total =
        query.from === undefined && query.to === undefined
          ? ((this.host.stmt("SELECT n FROM indexed_record_counts WHERE collection = ? AND ix = ? AND value = ?").raw(true).get(collection, selected?.index ?? ALL, selected?.value ?? "") as
              | [number]
              | undefined)?.[0] ?? 0)
          : (this.host.stmt(`SELECT COUNT(*) FROM indexed_records WHERE ${where}`).raw(true).get(...params) as [number])[0];
      const offset = Math.max(0, query.offset);
      const count = Math.min(query.limit, total - offset);
      if (count <= 0) return { json: "[]", total };
      // forwards: group_concat takes the subquery's rows in its order; backwards: ordered inside the aggregate (as the store's range);
      // the brackets joined by SQLite: one flat text handed over, which JSON.parse reads about 1 µs a CDR faster than
      // the text joined with them here (bench/RESULTS.md "CDR audit")
      const joined = (
        offset + count > total / 2
          ? this.host
              .stmt(`SELECT '[' || group_concat(value, ',' ORDER BY sort_key, key) || ']' FROM (SELECT value, sort_key, key FROM indexed_records WHERE ${where} ORDER BY sort_key DESC, key DESC LIMIT ? OFFSET ?)`)
              .raw(true)
              .get(...params, count, total - offset - count)
          : this.host.stmt(`SELECT '[' || group_concat(value, ',') || ']' FROM (SELECT value FROM indexed_records WHERE ${where} ORDER BY sort_key, key LIMIT ? OFFSET ?)`).raw(true).get(...params, count, offset)
      ) as [string | null];
      return { json: joined[0] ?? "[]", total };
    });
    return { items: JSON.parse(page.json) as T[], total: page.total };
  }
}

/** The parameters of writeRecords' rows, every value encoded before the first is written. */
const encoded = <T>(collection: string, indexes: RecordIndexes, records: readonly IndexedRecord<T>[]): unknown[] => {
  checkedIndexes(collection, indexes);
  const params: unknown[] = [];
  for (const { key, sortKey, fields, value } of records) {
    params.push(collection, key, sortKey);
    for (let i = 0; i < MAX_RECORD_INDEXES; i++) params.push(i < indexes.length ? (indexValue(indexes[i], fields) ?? null) : null);
    params.push(encode(value));
  }
  return params;
};

/** What a write changes in the counts: of the collection (ALL) and of each index value, from the index columns of rows written or replaced. */
class Counts {
  /** the change of the collection's count (ALL) */
  private all = 0;
  /** the change of each index value's count, by index (no key text built per value) */
  private readonly byIndex = Array.from({ length: MAX_RECORD_INDEXES }, () => new Map<string, number>());
  /** records written */
  added = 0;

  rows(rows: unknown[], by: 1 | -1): void {
    for (const values of rows as (string | null)[][]) {
      if (by > 0) this.added++;
      this.all += by;
      values.forEach((value, ix) => value !== null && this.count(ix, value, by));
    }
  }

  /** `n` records without index values written (1) or replaced (-1): only the collection's count changes. */
  unindexed(n: number, by: 1 | -1): void {
    this.all += by * n;
  }

  /** The records of `params` (encoded's), each written: their index columns are their parameters. */
  written(params: readonly unknown[]): void {
    for (let at = 0; at < params.length; at += PARAMS) {
      this.added++;
      this.all++;
      for (let ix = 0; ix < MAX_RECORD_INDEXES; ix++) {
        const value = params[at + 3 + ix] as string | null;
        if (value !== null) this.count(ix, value, 1);
      }
    }
  }

  write(host: SqliteIndexedRecordsHost, collection: string): void {
    const counted = host.stmt("INSERT INTO indexed_record_counts (collection, ix, value, n) VALUES (?, ?, ?, ?) ON CONFLICT (collection, ix, value) DO UPDATE SET n = n + excluded.n");
    if (this.all !== 0) counted.run(collection, ALL, "", this.all);
    this.byIndex.forEach((changes, ix) => {
      for (const [value, n] of changes) if (n !== 0) counted.run(collection, ix, value, n);
    });
  }

  private count(ix: number, value: string, by: number): void {
    const changes = this.byIndex[ix];
    changes.set(value, (changes.get(value) ?? 0) + by);
  }
}

/** A statement's text for a number of rows, built once per number (a text built again each time was hashed again by the statement cache). */
const perRows = (build: (rows: number) => string): ((rows: number) => string) => {
  const built = new Map<number, string>();
  return (rows) => {
    let sql = built.get(rows);
    if (sql === undefined) built.set(rows, (sql = build(rows)));
    return sql;
  };
};

/**
 * INSERT of `rows` records, a record of a key already written left as it is (NOTHING: answers the index columns of
 * those written) or replaced (UPDATE: each is written, nothing answered: its index values are its parameters).
 */
const writeRecords = (rows: number, conflict: "NOTHING" | "UPDATE"): string => (conflict === "NOTHING" ? addRows(rows) : putRows(rows));
const recordsSql = (rows: number, conflict: "NOTHING" | "UPDATE"): string =>
  `INSERT INTO indexed_records (collection, key, sort_key, ${columns.join(", ")}, value) VALUES ${Array(rows).fill(`(${Array(PARAMS).fill("?").join(", ")})`).join(", ")}
   ON CONFLICT (collection, key) DO ${conflict === "NOTHING" ? `NOTHING RETURNING ${columns.join(", ")}` : `UPDATE SET sort_key = excluded.sort_key, ${columns.map((c) => `${c} = excluded.${c}`).join(", ")}, value = excluded.value`}`;

const addRows = perRows((rows) => recordsSql(rows, "NOTHING"));
const putRows = perRows((rows) => recordsSql(rows, "UPDATE"));
/** putRows, a row holding an index value set to a NULL value instead, which fails the whole statement (SqliteIndexedRecords.overUnindexed) */
const overUnindexedRows = perRows((rows) =>
  recordsSql(rows, "UPDATE").replace("value = excluded.value", `value = CASE WHEN ${columns.map((c) => `indexed_records.${c} IS NULL`).join(" AND ")} THEN excluded.value END`),
);

/**
 * How many of `rows` keys are written, and how many of those hold a value in each index column (one parameter a key
 * after the collection): one row answered, where the rows' index columns were one row each (about 2 µs a record
 * against 3.5 in a micro-benchmark of the statements, bench/RESULTS.md "CDR audit").
 */
const heldOf = perRows(
  (rows) => `SELECT COUNT(*), ${columns.map((column) => `COUNT(${column})`).join(", ")} FROM indexed_records WHERE collection = ? AND key IN (${Array(rows).fill("?").join(", ")})`,
);

/** The index columns of the records of `rows` keys already written (one key a parameter after the collection). */
const placesOf = perRows((rows) => `SELECT ${columns.join(", ")} FROM indexed_records WHERE collection = ? AND key IN (${Array(rows).fill("?").join(", ")})`);
