import { ciKey, parseDateTime, partyKey, type Page, type PageRequest, type PartyRef, type PutOutcome, type Store, type StoredJsonPage } from "../kit";



/**
 * Objects of one module, kept per owning party in the gateway's store and
 * indexed by `last_updated`. A page costs O(page) (the store keeps each
 * collection's count and reaches an offset through its index, see
 * core/contract/store.ts); a date-filtered one also counts its date range. Used by
 * every module of the `local` adapter.
 *
 * Keys are object ids, which are CiStrings (OCPI 2.2.1 Types): every method
 * stores and looks up under `ciKey` of the key, so `tok1` and `TOK1` are one
 * object, which keeps the case it was last written with.
 */
export class OwnedCollection<T extends { last_updated: string }> {
  constructor(
    private readonly store: Store,
    private readonly module: string,
  ) {}

  private collection(owner: PartyRef): string {
    return `local:${this.module}:${partyKey(owner)}`;
  }

  list(owner: PartyRef, page: PageRequest): Promise<Page<T>> {
    return this.store.range<T>(this.collection(owner), { from: page.dateFrom, to: page.dateTo, offset: page.offset, limit: page.limit });
  }

  /** `list` as the JSON text the objects are stored as (one JSON array text), not parsed. */
  listJson(owner: PartyRef, page: PageRequest): Promise<StoredJsonPage> {
    return this.store.rangeJson(this.collection(owner), { from: page.dateFrom, to: page.dateTo, offset: page.offset, limit: page.limit });
  }

  get(owner: PartyRef, key: string): Promise<T | undefined> {
    return this.store.get<T>(this.collection(owner), ciKey(key));
  }

  /** Stores `value` whole, without reading the object it replaces (only whether there was one). */
  async put(owner: PartyRef, key: string, value: T): Promise<PutOutcome> {
    return (await this.store.replace(this.collection(owner), ciKey(key), value, sortKeyOf(value))) ? "updated" : "created";
  }

  /** `put` of several objects, in their order (a later one with the same key wins), in one store call: a page of a sync pull. */
  putAll(owner: PartyRef, objects: readonly { key: string; value: T }[]): Promise<void> {
    return this.store.putAll(
      this.collection(owner),
      objects.map(({ key, value }) => ({ key: ciKey(key), value, sortKey: sortKeyOf(value) })),
    );
  }

  /** Writes only when absent (CDRs are immutable); true when it wrote. */
  insert(owner: PartyRef, key: string, value: T): Promise<boolean> {
    return this.store.putIfAbsent(this.collection(owner), ciKey(key), value, sortKeyOf(value));
  }

  /**
   * Atomic change of an existing object; undefined when there is none. The
   * change may throw (nothing is written) and must be pure (it can be retried).
   */
  async modify(owner: PartyRef, key: string, change: (current: T) => T): Promise<T | undefined> {
    let found = false;
    const result = await this.store.update<T>(this.collection(owner), ciKey(key), (current) => {
      found = current !== undefined;
      if (!current) return undefined;
      const value = change(current);
      return { value, sortKey: sortKeyOf(value) };
    });
    return found ? result : undefined;
  }

  delete(owner: PartyRef, key: string): Promise<boolean> {
    return this.store.delete(this.collection(owner), ciKey(key));
  }
}

/** The last timestamp read: an object written to its collection and an index is read once. */
let lastRead: { text: string; ms: number } = { text: "", ms: 0 };
const sortKeyOf = ({ last_updated: text }: { last_updated: string }): number => {
  if (text !== lastRead.text) lastRead = { text, ms: parseDateTime(text) ?? 0 };
  return lastRead.ms;
};
