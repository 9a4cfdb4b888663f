import { MAX_RECORD_INDEXES, type IndexedQuery, type RecordIndexes } from "../contract/store";

/**
 * What the stores' indexed records (Store.indexedRecords: core/store/sqlite-indexed-records.ts,
 * redis-indexed-records.ts) share: which index a query selects by, and a record's value in an index.
 */

/** The indexes declared, checked: at most MAX_RECORD_INDEXES, each naming at least one field. */
export const checkedIndexes = (collection: string, indexes: RecordIndexes): RecordIndexes => {
  if (indexes.length > MAX_RECORD_INDEXES || indexes.some((index) => index.length === 0))
    throw new Error(`${collection}: at most ${MAX_RECORD_INDEXES} indexes, each of one field or more`);
  return indexes;
};

/**
 * The index `where` selects by (its position in `indexes`) and the value the records it selects have there;
 * undefined for no `where` (every record). An Error when no index names exactly `where`'s fields.
 */
export const selectedIndex = (collection: string, indexes: RecordIndexes, where: IndexedQuery["where"]): { index: number; value: string } | undefined => {
  const names = where ? Object.keys(where) : [];
  if (names.length === 0) return undefined;
  const index = checkedIndexes(collection, indexes).findIndex((fields) => fields.length === names.length && fields.every((field) => field in where!));
  if (index < 0) throw new Error(`${collection}: no index selects by ${names.join(", ")}`);
  return { index, value: indexValue(indexes[index], where!)! };
};

/**
 * A record's value in an index: the field's value for an index of one field, else its fields' values in the index's
 * order as a JSON array text (one stringify fewer per record for the indexes of one field, which cannot be confused
 * with another index's: each has a column or set of its own); undefined when it lacks one of them.
 */
export const indexValue = (fields: readonly string[], values: Readonly<Record<string, string>>): string | undefined => {
  if (fields.length === 1) return values[fields[0]];
  const held: string[] = [];
  for (const field of fields) {
    const value = values[field];
    if (value === undefined) return undefined;
    held.push(value);
  }
  return JSON.stringify(held);
};
