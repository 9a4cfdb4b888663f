import type { IndexedRecord, RecordIndexes, Store } from "../../../core/contract/store";
import { auditedOfKept, keptAuditedCdr, type AuditedCdr, type KeptAuditedCdr } from "./audited-cdr";
import { auditKey, type CdrAudit, type Direction, type KeptAudit, type Verdict } from "./model";
import { explained } from "./explain";
import type { PartyRef } from "../../../core/protocol/types";
import type { VersionNumber } from "../../../core/protocol/types";

/**
 * The CDR audit in the gateway's store (any store: SQLite, Redis, Redis Cluster), one indexed collection of the store
 * (Store.indexedRecords), `cdrs:audits`, each CDR's record under its audit key, written once by `add` (so each is
 * audited once): while it waits, the queued CDR, without indexed fields, at a sort key below every audit's
 * (`PENDING`: the queue, oldest first, is the head of the collection); once audited, its audit in its place, at the
 * time it was made, its partner and verdict indexed (`INDEXES`: the lists by partner, by partner and verdict, by
 * verdict). On SQLite an audit is thus one row rewritten in place, where until 2026-12 it was an entry rewritten and
 * three rows of key lists (bench/RESULTS.md "CDR audit"). What those earlier releases kept in `cdrs:audit` (queued
 * CDRs and audits) is taken over a page at a time as the worker asks for more, each audit listed again from itself;
 * the lists they kept (collections, then key lists) are no longer read.
 * An audit is found by its CDR's id through the owners it may have (`byId`): its key holds the id.
 */
const AUDITS = "cdrs:audits";
/** the audits' lists: by partner, by partner and verdict, by verdict */
const INDEXES: RecordIndexes = [["partner"], ["partner", "verdict"], ["verdict"]];
/** where earlier releases kept queued CDRs and audits, entries of a collection (until 2026-12) */
const EARLIER_ENTRIES = "cdrs:audit";
/** where CDRs waited before that (until b37f23b) */
const EARLIER_QUEUE = "cdrs:audit:queue";
/** how often, at most, enqueue looks whether EARLIER_ENTRIES still holds anything */
const EARLIER_CHECK_MS = 60_000;
/** added to the time a CDR is queued: its sort key while it waits, below 0, so below every audit's */
const PENDING = -(2 ** 52);
/** the partner field of an audit without a partner (ours, for a token no registered partner holds) */
const NO_PARTNER = "-";
/** audited_at in epoch ms, the last one remembered: a batch's audits share a few (audit-worker.ts makes each once) */
let lastAuditedAt = { text: "", ms: NaN };
const auditedMs = (text: string): number => (text === lastAuditedAt.text ? lastAuditedAt.ms : (lastAuditedAt = { text, ms: Date.parse(text) }).ms);
const recordOf = (audit: KeptAudit): IndexedRecord<Kept> => ({ key: audit.key, sortKey: auditedMs(audit.audited_at), fields: { partner: audit.partner ?? NO_PARTNER, verdict: audit.verdict }, value: audit });

/** A CDR waiting to be audited: the CDR as it passed (what its audit reads of it), and who it passed with. */
export interface QueuedCdr {
  key: string;
  direction: Direction;
  /** the partner it came from (received); for ours, found when audited */
  partner?: string;
  version?: VersionNumber;
  cdr: AuditedCdr;
}

/** What a list shows of an audit. */
export interface AuditSummary {
  key: string;
  cdr_id: string;
  partner?: string;
  direction: Direction;
  country_code: string;
  party_id: string;
  verdict: Verdict;
  audited_at: string;
  currency: string;
  total_cost: number | undefined;
  differences: number;
  reason?: string;
}

export const summaryOf = (a: KeptAudit): AuditSummary => ({
  key: a.key,
  cdr_id: a.cdr_id,
  ...(a.partner ? { partner: a.partner } : {}),
  direction: a.direction,
  country_code: a.owner.country_code,
  party_id: a.owner.party_id,
  verdict: a.verdict,
  audited_at: a.audited_at,
  currency: a.currency,
  total_cost: a.amounts.total_cost,
  differences: a.differences.length,
  ...(a.reason ? { reason: a.reason } : {}),
});

export interface AuditQuery {
  partner?: string;
  verdict?: Verdict;
  /** audited at or after, epoch ms */
  since?: number;
  offset: number;
  limit: number;
}

/** A queued CDR as `cdrs:audits` keeps it (its tariffs as text: audited-cdr.ts KeptAuditedCdr). */
type KeptQueuedCdr = Omit<QueuedCdr, "cdr"> & { cdr: KeptAuditedCdr };
/** What `cdrs:audits` holds under a key (and `cdrs:audit` held): the queued CDR, then its audit. */
type Kept = KeptQueuedCdr | KeptAudit;
const isQueued = (kept: Kept): kept is KeptQueuedCdr => "cdr" in kept;

export class AuditStore {
  /** nothing is left in EARLIER_QUEUE (no release writes it any more) */
  private earlierQueueEmpty = false;
  /** nothing is left in EARLIER_ENTRIES; else when enqueue last looked */
  private earlierEntriesGone = false;
  private earlierCheckedAt = -Infinity;

  constructor(private readonly store: Store) {}

  /** Queues a CDR the first time it is seen (what its audit reads of it: audited-cdr.ts); false when it was seen before. */
  async enqueue(entry: QueuedCdr, now = Date.now()): Promise<boolean> {
    if (await this.seenEarlier(entry.key, now)) return false;
    return (await this.store.indexedRecords.add(AUDITS, INDEXES, [{ key: entry.key, sortKey: PENDING + now, fields: {}, value: { ...entry, cdr: keptAuditedCdr(entry.cdr) } }])) === 1;
  }

  /** Whether an earlier release queued or audited the CDR of this key, in what is not taken over yet. */
  private async seenEarlier(key: string, now: number): Promise<boolean> {
    if (this.earlierEntriesGone) return false;
    if (now - this.earlierCheckedAt >= EARLIER_CHECK_MS) {
      this.earlierCheckedAt = now;
      if ((await this.store.range(EARLIER_ENTRIES, { offset: 0, limit: 0 })).total === 0) return !(this.earlierEntriesGone = true);
    }
    return (await this.store.get(EARLIER_ENTRIES, key)) !== undefined;
  }

  /** The oldest queued CDRs: the head of the collection, up to its first audit (unbounded: the store's kept count, not a count of the queue). */
  async next(limit: number): Promise<QueuedCdr[]> {
    await this.adoptEarlierQueue(limit);
    await this.adoptEarlierEntries(limit);
    const queued: QueuedCdr[] = [];
    for (const kept of (await this.store.indexedRecords.range<Kept>(AUDITS, INDEXES, { offset: 0, limit })).items)
      // its tariffs' text made objects in its place (auditedOfKept)
      if (isQueued(kept)) queued.push(Object.assign(kept, { cdr: auditedOfKept(kept.cdr) }));
    return queued;
  }

  /** CDRs an earlier release queued in EARLIER_QUEUE, queued here (each once, as any CDR) and taken off there, a page at a time. */
  private async adoptEarlierQueue(limit: number): Promise<void> {
    if (this.earlierQueueEmpty) return;
    const page = await this.store.range<QueuedCdr>(EARLIER_QUEUE, { offset: 0, limit });
    if (page.items.length === 0) this.earlierQueueEmpty = true;
    for (const entry of page.items) {
      await this.enqueue(entry);
      await this.store.delete(EARLIER_QUEUE, entry.key);
    }
  }

  /**
   * What earlier releases kept in EARLIER_ENTRIES, written here and taken off there, a page each time the worker asks
   * for more: queued CDRs at the head of the queue, audits at their time (each unless its key is written here already).
   */
  private async adoptEarlierEntries(limit: number): Promise<void> {
    if (this.earlierEntriesGone) return;
    const page = await this.store.range<Kept>(EARLIER_ENTRIES, { offset: 0, limit });
    if (page.items.length === 0) return void (this.earlierEntriesGone = true);
    await this.store.indexedRecords.add<Kept>(AUDITS, INDEXES, page.items.map((kept) => (isQueued(kept) ? { key: kept.key, sortKey: PENDING, fields: {}, value: kept } : recordOf(kept))));
    for (const kept of page.items) await this.store.delete(EARLIER_ENTRIES, kept.key);
  }

  async queued(): Promise<number> {
    return (await this.store.indexedRecords.range(AUDITS, INDEXES, { to: 0, offset: 0, limit: 0 })).total;
  }

  /** The audit of this key, its re-pricing in words; none while its CDR waits. */
  async get(key: string): Promise<CdrAudit | undefined> {
    const kept = (await this.store.indexedRecords.get<Kept>(AUDITS, key)) ?? (this.earlierEntriesGone ? undefined : await this.store.get<Kept>(EARLIER_ENTRIES, key));
    return kept && !isQueued(kept) ? explained(kept) : undefined;
  }

  /** The audits of CDRs with this id under any of `owners` (our parties and partners'), in either direction. */
  async byId(id: string, owners: readonly PartyRef[]): Promise<CdrAudit[]> {
    const keys = owners.flatMap((owner) => (["received", "sent"] as const).map((direction) => auditKey(direction, owner, id)));
    return (await Promise.all([...new Set(keys)].map((key) => this.get(key)))).filter((a): a is CdrAudit => a !== undefined);
  }

  /** Keeps audits in their queued CDRs' place, off the queue and in their lists: one write. */
  async record(audits: readonly KeptAudit[]): Promise<void> {
    await this.store.indexedRecords.put(AUDITS, INDEXES, audits.map(recordOf));
  }

  /** A page of summaries, oldest audit first (every list of the gateway is ordered by its sort key). */
  async list(query: AuditQuery): Promise<{ items: AuditSummary[]; total: number }> {
    const where = { ...(query.partner !== undefined ? { partner: query.partner } : {}), ...(query.verdict ? { verdict: query.verdict } : {}) };
    // never below 0, where the queued CDRs sort (not in the lists by partner or verdict: no indexed fields)
    const since = query.since === undefined ? undefined : Math.max(query.since, 0);
    const from = Object.keys(where).length ? since : (since ?? 0);
    const page = await this.store.indexedRecords.range<KeptAudit>(AUDITS, INDEXES, { where, ...(from !== undefined ? { from } : {}), offset: query.offset, limit: query.limit });
    return { items: page.items.map(summaryOf), total: page.total };
  }

  /** How many of the partner's CDRs were audited since `since`, and how many of them mismatch. */
  async counts(partner: string, since: number): Promise<{ audited: number; mismatches: number }> {
    const counted = (where: { partner: string; verdict?: Verdict }) => this.store.indexedRecords.range(AUDITS, INDEXES, { where, from: since, offset: 0, limit: 0 });
    const [all, mismatches] = await Promise.all([counted({ partner }), counted({ partner, verdict: "mismatch" })]);
    return { audited: all.total, mismatches: mismatches.total };
  }
}
