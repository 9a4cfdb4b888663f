import { inScope, partyKey, type PartyRef, type PartyScope, type Store } from "../kit";
import { STEVE_COLLECTION } from "./store-kv";

/** The store collection of the parties that own idTags, and the prefix of each party's collection of its idTags. */
export const TAG_OWNERS_COLLECTION = "steve-tag-owners";
const tagsCollection = (owner: PartyRef) => `steve-tags:${partyKey(owner)}`;
const PAGE = 1_000;

/**
 * Which idTags each eMSP party owns (tags.ts allocates them, one owner per
 * idTag for good), indexed in the gateway's store so that a Sessions or CDRs
 * list can ask SteVe for the transactions of a partner's tokens only
 * (ports/transactions.ts). One store entry per idTag and per owner, written
 * only when absent: concurrent token pushes, on any instance, never
 * overwrite each other.
 */
export interface TagOwners {
  add(owner: PartyRef, idTag: string): Promise<void>;
  /** every idTag whose owner is in the scope */
  idTagsIn(scope: PartyScope): Promise<string[]>;
  /**
   * Once per store: indexes the tag records a gateway kept before this
   * index existed (tags.ts's `steve:tag:<idTag>` entries in the adapter's
   * collection), so their owners' partners still see their sessions.
   */
  indexKeptTags(): Promise<void>;
}

/** Marks a store whose kept tag records were indexed. */
const INDEXED_KEY = "steve:tag-owners:indexed";

/** A tag record as tags.ts keeps it (TagRecord), told apart from the other values of the adapter's collection. */
const tagRecordOf = (value: string): { idTag: string; owner: PartyRef } | undefined => {
  try {
    const v = JSON.parse(value) as { idTag?: unknown; owner?: { country_code?: unknown; party_id?: unknown }; uid?: unknown };
    return typeof v?.idTag === "string" && typeof v.uid === "string" && typeof v.owner?.country_code === "string" && typeof v.owner.party_id === "string"
      ? { idTag: v.idTag, owner: v.owner as PartyRef }
      : undefined;
  } catch {
    return undefined;
  }
};

async function all<T>(store: Store, collection: string): Promise<T[]> {
  const items: T[] = [];
  for (;;) {
    const page = await store.range<T>(collection, { offset: items.length, limit: PAGE });
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.total) return items;
  }
}

export const storeTagOwners = (store: Store): TagOwners => ({
  async add(owner, idTag) {
    await store.putIfAbsent(tagsCollection(owner), idTag, idTag);
    await store.putIfAbsent(TAG_OWNERS_COLLECTION, partyKey(owner), { country_code: owner.country_code, party_id: owner.party_id });
  },
  async idTagsIn(scope) {
    const owners = (await all<PartyRef>(store, TAG_OWNERS_COLLECTION)).filter((owner) => inScope(scope, owner));
    return (await Promise.all(owners.map((owner) => all<string>(store, tagsCollection(owner))))).flat();
  },
  async indexKeptTags() {
    if (await store.get(STEVE_COLLECTION, INDEXED_KEY)) return;
    for (const value of await all<string>(store, STEVE_COLLECTION)) {
      const record = typeof value === "string" ? tagRecordOf(value) : undefined;
      if (record) await this.add(record.owner, record.idTag);
    }
    await store.put(STEVE_COLLECTION, INDEXED_KEY, "1");
  },
});
