import type { GatewayConfig, PartnerConfig } from "../../config/types";
import type { Store, StoreGuard } from "../contract/store";
import type { PartnerIdentity } from "../contract/request-context";
import { PARTNERS, TOKEN_INDEX, deepFreeze, newPartnerRecord, type TokenIndexEntry } from "./partner-record";
import { type PartnerRecord } from "../contract/partner-record";
import { generateToken, hashToken, readAuthorization, tokenKindOf } from "./token-vault";
import { RegistrationGeneration } from "./registration-generation";
import { checkRoleClaims, heldParties } from "./role-claims";
import { profileOf, settingsOf } from "./partner-profile";
import { type PartnerProfile, type PartnerSettings } from "../contract/partner-profile";
import { defaultPartnerConfig } from "./partner-settings";
import { claimStoredParties, now, retireToken, rotated, writeRegistration, writeRegistrationIssuing, type RegistrationResult } from "./registration-write";
import { ModuleOffers } from "./module-offers";

export type { RegistrationResult } from "./registration-write";

/** A token the store knows: its index entry and its partner's record (frozen: shared by requests). */
interface KnownToken {
  entry: TokenIndexEntry;
  record: PartnerRecord;
}

/** Tokens (known or not) remembered per generation; past this, lookups go to the store without being remembered. */
const MAX_REMEMBERED_TOKENS = 10_000;

/** The partner records of one registration generation, and their index by id. */
interface ListedRecords {
  records: readonly PartnerRecord[];
  byId: ReadonlyMap<string, PartnerRecord>;
}

/** The listing under one registration generation: its read, and what it read once it is in. */
interface Listing {
  generation: string;
  read: Promise<ListedRecords>;
  settled?: ListedRecords;
}

/**
 * Partners: their YAML settings joined with what the store remembers of
 * their registration, and the tokens that authenticate them.
 *
 * Authentication reads the store's registration generation on every
 * request (one read shared by the requests that arrive together) and
 * answers from what it looked up under that generation: every write here
 * renews the generation after it, so a CLI process registering a partner,
 * another instance rotating a token and the serving process always agree,
 * and a rotated-out or unregistered token is refused by every instance as
 * soon as the write has returned.
 */
export class PartnerRegistry {
  /** which modules each partner is offered in a version (module-offers.ts) */
  readonly modules = new ModuleOffers();
  private readonly generation: RegistrationGeneration;
  /**
   * Under `generation`: hash of a presented token → what the store had for
   * it (null: nothing); and Authorization header → who it authenticated,
   * until when (a token with an expiry), so a partner's next request with
   * the same header costs a map lookup.
   */
  private known?: { generation: string; tokens: Map<string, KnownToken | null>; headers: Map<string, { identity: PartnerIdentity; until: number; base64First: boolean }> };
  /** a renewal that failed after a write: retried before the next authentication */
  private renewalPending = false;
  /** every partner record (frozen: shared by callers) as listed under `generation`, by id once read; see `listCurrent` */
  private listed?: Listing;
  private readonly added = new Map<string, PartnerConfig>();

  constructor(
    private readonly config: GatewayConfig,
    private readonly store: Store,
  ) {
    this.generation = new RegistrationGeneration(store);
  }

  /** Makes every configured token A usable, unless a registration already used it up; claims the parties of older registrations. */
  async init(): Promise<void> {
    await this.changing(async () => {
      await this.initTokens();
      await claimStoredParties(this.store, await this.list());
    });
  }

  private async initTokens(): Promise<void> {
    for (const partner of this.config.partners) {
      if (!partner.token_a) {
        await this.store.putIfAbsent(PARTNERS, partner.id, newPartnerRecord(partner.id));
        continue;
      }
      const hash = hashToken(partner.token_a);
      const record = await this.store.update<PartnerRecord>(PARTNERS, partner.id, (current) => {
        const record = current ?? newPartnerRecord(partner.id);
        // A token A that differs from the one remembered was handed over anew by the operator.
        if (record.tokenAHash === hash) return current ? undefined : { value: record };
        return { value: { ...record, tokenAHash: hash, tokenAConsumed: false, updatedAt: now() } };
      });
      if (record && !record.tokenAConsumed) await this.index(hash, { partnerId: partner.id, kind: "token_a" });
    }
  }

  /** The partner's YAML entry; for one `partners add` created, defaults kept per id (`added`: profiles are kept per entry). Read only where profiles are built. */
  configOf(id: string): PartnerConfig {
    let config = this.config.partners.find((p) => p.id === id) ?? this.added.get(id);
    if (!config) this.added.set(id, (config = defaultPartnerConfig(id)));
    return config;
  }

  /** How the gateway treats the partner now (core/partners/partner-profile.ts): its record as listed now (current) under its YAML entry. */
  async currentProfile(id: string): Promise<PartnerProfile | undefined> {
    const record = await this.current(id);
    return record && this.profileOf(record);
  }

  /** The profile of a registration record in hand (a listing's, an authentication's, one read from the store). */
  profileOf(record: PartnerRecord): PartnerProfile {
    return profileOf(this.config, this.configOf(record.id), record);
  }

  /** The YAML half of its profile, with no read, where no registration is involved (partner-profile.ts PartnerSettings says where). */
  settingsOf(id: string): PartnerSettings {
    return settingsOf(this.config, this.configOf(id));
  }

  async get(id: string): Promise<PartnerRecord | undefined> {
    return this.store.get<PartnerRecord>(PARTNERS, id);
  }

  async require(id: string): Promise<PartnerRecord> {
    const record = await this.get(id);
    if (!record) throw new Error(`Unknown partner ${id}`);
    return record;
  }

  async list(): Promise<PartnerRecord[]> {
    const page = await this.store.range<PartnerRecord>(PARTNERS, { offset: 0, limit: 100_000 });
    return page.items;
  }

  /**
   * Every partner record, from the store when its registration generation
   * moved since the last listing, otherwise from memory: one generation read
   * (shared by the callers that arrive together) instead of a read of every
   * record. The generation is read before the records, so a listing is never
   * older than the generation it is kept under: a partner registered or
   * unregistered by any instance on the store is seen as soon as that write
   * has returned. The records are frozen (shared by every caller).
   */
  async listCurrent(): Promise<readonly PartnerRecord[]> {
    return (await this.listing()).records;
  }

  /**
   * A partner's record as listed under the store's current registration generation (listCurrent): what a
   * delivery reads its token, version and endpoints from, one shared generation read instead of a record
   * read per message. A rotated token or a new registration is used from the moment its write returned.
   */
  async current(id: string): Promise<PartnerRecord | undefined> {
    return (await this.listing()).byId.get(id);
  }

  /**
   * The listing last read (listCurrent), without reading the generation again, and the store entry that
   * must still hold its generation for it to be current (`StoreGuard`): a write that checks the guard in
   * the same step (Outbox.enqueueAll) acts on current registrations with no read of its own. Undefined
   * before a listing is in, and after this process wrote registrations.
   */
  lastListing(): { records: readonly PartnerRecord[]; guard: StoreGuard } | undefined {
    const listed = this.listed;
    const guard = listed && this.generation.guard(listed.generation);
    return listed?.settled && guard ? { records: listed.settled.records, guard } : undefined;
  }

  private async listing(): Promise<ListedRecords> {
    if (this.renewalPending) await this.renewGeneration();
    const generation = await this.generation.read();
    let listed = this.listed;
    if (listed?.generation !== generation) {
      const entry: Listing = {
        generation,
        read: this.list().then((items) => {
          const records = Object.freeze(items.map(deepFreeze));
          return (entry.settled = { records, byId: new Map(records.map((r) => [r.id, r])) });
        }),
      };
      listed = this.listed = entry;
      // a failed read is not kept: the next caller reads again
      entry.read.catch(() => {
        if (this.listed === entry) this.listed = undefined;
      });
    }
    return listed.read;
  }

  /**
   * What `authenticate` and `listCurrent` answer, without waiting, when the store tells at once that its registration generation
   * is the one they were read under (RegistrationGeneration.now) and both were read under it already; else undefined (ask them).
   */
  knownNow(header: string, base64First: boolean): { identity: PartnerIdentity; records: readonly PartnerRecord[] } | undefined {
    const identity = this.identityUnder(this.renewalPending ? undefined : this.generation.now(), header, base64First);
    const listed = this.listed;
    return identity && listed?.settled && listed.generation === this.known?.generation ? { identity, records: listed.settled.records } : undefined;
  }

  /** What `authenticate` answers, when the generation is held without a read (RegistrationGeneration.held: one Redis); else undefined. */
  authenticatedNow(header: string, base64First: boolean): PartnerIdentity | undefined {
    return this.identityUnder(this.renewalPending ? undefined : this.generation.held(), header, base64First);
  }

  private identityUnder(generation: string | undefined, header: string, base64First: boolean): PartnerIdentity | undefined {
    if (generation === undefined || this.known?.generation !== generation) return undefined;
    const seen = this.known.headers.get(header);
    return seen && seen.base64First === base64First && Date.now() < seen.until ? seen.identity : undefined;
  }

  /** Creates a partner that is not in the YAML and returns its fresh token A, for the offline hand-over. */
  async add(id: string): Promise<string> {
    return this.changing(() => this.addPartner(id));
  }

  private async addPartner(id: string): Promise<string> {
    const tokenA = generateToken();
    const hash = hashToken(tokenA);
    const created = await this.store.putIfAbsent(PARTNERS, id, { ...newPartnerRecord(id), tokenAHash: hash });
    if (!created) throw new Error(`Partner ${id} already exists`);
    await this.index(hash, { partnerId: id, kind: "token_a" });
    return tokenA;
  }

  /**
   * Who sent this Authorization header, if anyone we know. `base64First`
   * (requests of 2.2+, where tokens are sent Base64-encoded) tries the
   * header's Base64 reading before the raw one.
   */
  async authenticate(header: string | undefined, options: { base64First?: boolean } = {}): Promise<PartnerIdentity | undefined> {
    if (header === undefined) return undefined;
    if (this.renewalPending) await this.renewGeneration();
    const generation = await this.generation.read();
    let known = this.known;
    if (known?.generation !== generation) known = this.known = { generation, tokens: new Map(), headers: new Map() };
    const base64First = options.base64First === true;
    const seen = known.headers.get(header);
    if (seen && seen.base64First === base64First && Date.now() < seen.until) return seen.identity;
    const candidates = readAuthorization(header);
    if (base64First && candidates.length === 2) candidates.reverse();
    for (const candidate of candidates) {
      const hash = hashToken(candidate.value);
      let found = known.tokens.get(hash);
      if (found === undefined) {
        found = await this.lookUp(hash);
        // Not when the generation moved on meanwhile: that map belongs to a later read.
        if (this.known === known && known.tokens.size < MAX_REMEMBERED_TOKENS) known.tokens.set(hash, found);
      }
      if (!found) continue;
      const { entry, record } = found;
      if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) continue;
      const config = this.configOf(entry.partnerId);
      if (config.token_encoding !== "auto" && config.token_encoding !== candidate.encoding) continue;
      const via = tokenKindOf(record, entry, hash);
      if (!via) continue;
      const identity: PartnerIdentity = Object.freeze({ id: record.id, config, record, via, token: candidate.value });
      const until = Math.min(entry.expiresAt ?? Infinity, entry.kind === "previous" ? (record.previousTokenExpiresAt ?? 0) : Infinity);
      if (this.known === known && known.headers.size < MAX_REMEMBERED_TOKENS) known.headers.set(header, { identity, until, base64First });
      return identity;
    }
    return undefined;
  }

  private async lookUp(hash: string): Promise<KnownToken | null> {
    const entry = await this.store.get<TokenIndexEntry>(TOKEN_INDEX, hash);
    if (!entry) return null;
    const record = await this.get(entry.partnerId);
    return record ? { entry: Object.freeze(entry), record: deepFreeze(record) } : null;
  }

  /**
   * Runs a write of partners or tokens, then renews the store's generation
   * (also after a failed write, which may have written part): every
   * instance looks its tokens up again.
   */
  private async changing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.known = undefined;
      this.listed = undefined;
      await this.renewGeneration();
    }
  }

  private async renewGeneration(): Promise<void> {
    this.renewalPending = true;
    await this.generation.renew();
    this.renewalPending = false;
  }

  /**
   * Generates the token the partner will present to us from now on. The one
   * it replaces keeps working for `server.token_grace_seconds`, or, when we
   * initiate the rotation (`holdPrevious`), until `settleRotation` is called
   * after the partner has confirmed it: a failed PUT must not lock it out.
   */
  async issueToken(id: string, options: { holdPrevious?: boolean } = {}): Promise<string> {
    return this.changing(() => this.issue(id, options));
  }

  private async issue(id: string, options: { holdPrevious?: boolean }): Promise<string> {
    const token = generateToken();
    const hash = hashToken(token);
    await this.index(hash, { partnerId: id, kind: "current" });
    const holdMs = options.holdPrevious ? PENDING_ROTATION_MS : this.config.server.token_grace_seconds * 1000;
    let replaced: string | undefined;
    await this.store.update<PartnerRecord>(PARTNERS, id, (current) => {
      const record = current ?? newPartnerRecord(id);
      replaced = record.issuedTokenHash;
      return { value: { ...record, ...rotated(record, hash, holdMs), updatedAt: now() } };
    });
    await retireToken(this.store, id, replaced, holdMs);
    return token;
  }

  /** Ends a rotation we initiated: the previous token now gets only the configured grace period. */
  async settleRotation(id: string): Promise<void> {
    await this.changing(() => this.settle(id));
  }

  private async settle(id: string): Promise<void> {
    const graceMs = this.config.server.token_grace_seconds * 1000;
    let previous: string | undefined;
    await this.store.update<PartnerRecord>(PARTNERS, id, (current) => {
      if (!current?.previousTokenHash) return undefined;
      previous = current.previousTokenHash;
      const keep = graceMs > 0;
      return {
        value: {
          ...current,
          previousTokenHash: keep ? previous : undefined,
          previousTokenExpiresAt: keep ? Date.now() + graceMs : undefined,
        },
      };
    });
    if (!previous) return;
    if (graceMs > 0) await this.index(previous, { partnerId: id, kind: "previous", expiresAt: Date.now() + graceMs });
    else await this.store.delete(TOKEN_INDEX, previous);
  }

  /**
   * Stores the outcome of a credentials exchange and retires token A. Every registration comes here:
   * the roles it claims must pass role-claims.ts (2001 naming the role entry), and its parties are
   * claimed in the same write (Store.updateClaiming): a party another partner holds is refused, also
   * when both register at the same moment, and a refused claim stores nothing.
   */
  async recordRegistration(id: string, result: RegistrationResult): Promise<PartnerRecord> {
    checkRoleClaims(this.config, this.configOf(id), result.roles, result.hubPartyId);
    return this.changing(async () => (await writeRegistration(this.store, id, result)).record);
  }

  /**
   * recordRegistration of credentials the partner sent us (POST or PUT), with the token we answer in
   * the same write, so a refused claim leaves no token either. Answers that token; the one it replaces
   * keeps working for `server.token_grace_seconds`.
   */
  async recordIssuingToken(id: string, result: RegistrationResult): Promise<string> {
    checkRoleClaims(this.config, this.configOf(id), result.roles, result.hubPartyId);
    return this.changing(() => writeRegistrationIssuing(this.store, id, result, this.config.server.token_grace_seconds * 1000));
  }

  /** Both directions of automated communication end; every token of the partner stops working. */
  async unregister(id: string): Promise<void> {
    await this.changing(() => this.end(id));
  }

  private async end(id: string): Promise<void> {
    let hashes: (string | undefined)[] = [];
    // its parties are given up with the registration
    await this.store.updateClaiming<PartnerRecord>(PARTNERS, id, heldParties, (current) => {
      if (!current) return undefined;
      hashes = [current.issuedTokenHash, current.previousTokenHash];
      return {
        value: {
          ...current,
          status: "unregistered",
          tokenToPartner: undefined,
          issuedTokenHash: undefined,
          previousTokenHash: undefined,
          previousTokenExpiresAt: undefined,
          endpoints: [],
          updatedAt: now(),
        },
      };
    });
    for (const hash of hashes) if (hash) await this.store.delete(TOKEN_INDEX, hash);
  }

  private async index(hash: string, entry: TokenIndexEntry): Promise<void> {
    await this.store.put(TOKEN_INDEX, hash, entry);
  }
}

/** How long a token we are rotating away from stays valid while the partner has not confirmed the new one. */
const PENDING_ROTATION_MS = 60 * 60 * 1000;
