import { inScope, partyKey, sameParty, type StoredJsonPage, type Page, type PageRequest, type PartyRef, type PartyScope, type PutOutcome, type Store } from "../kit";
import { OwnedCollection } from "./owned-collection";

/** What Sessions and CDRs share: an owner of their token (`cdr_token`), the eMSP whose driver charges. */
interface TokenOwned {
  last_updated: string;
  /** a CDR that came in 2.1.1 may name no owner: then it is in no partner's scope and in no index */
  cdr_token: { country_code?: string; party_id?: string };
}

const tokenOwnerOf = ({ cdr_token: { country_code, party_id } }: TokenOwned): PartyRef | undefined =>
  country_code && party_id ? { country_code, party_id } : undefined;

/** How many objects a filtered list reads per store call. */
const CHUNK = 500;

/**
 * Sessions or CDRs of the `local` adapter, kept per owning party (an
 * OwnedCollection) and, for our own parties, also in an index collection per
 * (our party, token owner) written alongside each object. A partner sees only
 * the objects whose token owner is in its scope (core/partners/party-scope.ts):
 * a scope of one party is a page of its index, O(page); a partner with several
 * parties, or a hub, is served by filtering the owner's whole list.
 */
export class TokenOwnedCollection<T extends TokenOwned> {
  private readonly objects: OwnedCollection<T>;
  private readonly byToken: OwnedCollection<T>;

  constructor(
    store: Store,
    module: string,
    /** our parties: only their objects are listed to partners, so only theirs are indexed */
    private readonly ours: readonly PartyRef[],
  ) {
    this.objects = new OwnedCollection<T>(store, module);
    this.byToken = new OwnedCollection<T>(store, `${module}.by-token`);
  }

  /** `owner`'s objects within the page's dates; only those whose token owner is in `scope` when one is given. */
  async list(owner: PartyRef, page: PageRequest, scope?: PartyScope): Promise<Page<T>> {
    if (!scope) return this.objects.list(owner, page);
    if (!scope.relay && scope.parties.length === 1) return this.byToken.list(this.indexOwner(owner, scope.parties[0]), page);
    return this.filtered(owner, page, scope);
  }

  /** `list` as the JSON text each object is stored as: unparsed from the store where no filter reads them (no scope, or one party's index). */
  async listJson(owner: PartyRef, page: PageRequest, scope?: PartyScope): Promise<StoredJsonPage> {
    if (!scope) return this.objects.listJson(owner, page);
    if (!scope.relay && scope.parties.length === 1) return this.byToken.listJson(this.indexOwner(owner, scope.parties[0]), page);
    const { items, total } = await this.filtered(owner, page, scope);
    return { json: JSON.stringify(items), count: items.length, total };
  }

  /** Reads the owner's list chunk by chunk, counting what is in scope and keeping the page's share: memory O(page). */
  private async filtered(owner: PartyRef, page: PageRequest, scope: PartyScope): Promise<Page<T>> {
    const items: T[] = [];
    let total = 0;
    for (let offset = 0; ; offset += CHUNK) {
      const chunk = await this.objects.list(owner, { ...page, offset, limit: CHUNK });
      for (const object of chunk.items) {
        const tokenOwner = tokenOwnerOf(object);
        if (!tokenOwner || !inScope(scope, tokenOwner)) continue;
        if (total >= page.offset && items.length < page.limit) items.push(object);
        total++;
      }
      if (chunk.items.length < CHUNK) return { items, total };
    }
  }

  get(owner: PartyRef, key: string): Promise<T | undefined> {
    return this.objects.get(owner, key);
  }

  async put(owner: PartyRef, key: string, value: T): Promise<PutOutcome> {
    const before = this.isOurs(owner) ? await this.objects.get(owner, key) : undefined;
    const outcome = await this.objects.put(owner, key, value);
    await this.reindex(owner, key, before, value);
    return outcome;
  }

  /** Writes only when absent (CDRs are immutable); true when it wrote. */
  async insert(owner: PartyRef, key: string, value: T): Promise<boolean> {
    if (!(await this.objects.insert(owner, key, value))) return false;
    await this.reindex(owner, key, undefined, value);
    return true;
  }

  /** Atomic change of an existing object (OwnedCollection.modify); the index follows it. */
  async modify(owner: PartyRef, key: string, change: (current: T) => T): Promise<T | undefined> {
    let before: T | undefined;
    const after = await this.objects.modify(owner, key, (current) => {
      before = current;
      return change(current);
    });
    if (after) await this.reindex(owner, key, before, after);
    return after;
  }

  private async reindex(owner: PartyRef, key: string, before: T | undefined, after: T): Promise<void> {
    if (!this.isOurs(owner)) return;
    const [was, is] = [before && tokenOwnerOf(before), tokenOwnerOf(after)];
    // A token owner that changed: the object leaves its former owner's index.
    if (was && !(is && sameParty(was, is))) await this.byToken.delete(this.indexOwner(owner, was), key);
    if (is) await this.byToken.put(this.indexOwner(owner, is), key, after);
  }

  private isOurs(owner: PartyRef): boolean {
    return this.ours.some((party) => sameParty(party, owner));
  }

  /** The index collection of (our party, token owner), addressed as an OwnedCollection owner. */
  private indexOwner(owner: PartyRef, tokenOwner: PartyRef): PartyRef {
    return { country_code: partyKey(owner), party_id: partyKey(tokenOwner) };
  }
}
