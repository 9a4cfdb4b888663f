import type { Store } from "../../../core/contract/store";
import type { Cdr } from "../model";
import { auditKey, type CdrAudit, type Direction, type KeptAudit, type Verdict } from "./model";
import { explained } from "./explain";
import type { PartyRef } from "../../../core/protocol/types";
import type { VersionNumber } from "../../../core/protocol/types";

/**
 * The CDR audit in the gateway's store (any store: SQLite, Redis, Redis
 * Cluster; only single-collection operations are used):
 * - `cdrs:audit`: every CDR queued, by audit key, written once (so each is audited once): while it waits, the
 *   queued CDR, at a sort key before every audit's (`PENDING`: the queue, oldest first, is the head of the
 *   collection); once audited, its audit in its place, at the time it was made. Auditing a CDR thus rewrites
 *   one entry, where a queue of its own cost a second entry to queue it and a delete to take it off
 *   (bench/RESULTS.md "CDR audit");
 * - `cdrs:audit:p:<partner>`, `…:p:<partner>:<verdict>`, `…:v:<verdict>`: the lists, each entry the audit's key at
 *   the audit's time (a list page reads its audits by key: an index row holding only the key costs the worker about
 *   half of one holding the summary).
 * An audit is found by its CDR's id through the owners it may have (`byId`): its key holds the id.
 */
const RESULTS = "cdrs:audit";
/** where CDRs waited before the queue moved into RESULTS (b37f23b): what is left there is moved over as the worker asks for more */
const EARLIER_QUEUE = "cdrs:audit:queue";
/** added to the time a CDR is queued: its sort key while it waits, below 0, so below every audit's */
const PENDING = -(2 ** 52);
const NO_PARTNER = "-";
const byPartner = (partner: string) => `cdrs:audit:p:${partner}`;
const byPartnerVerdict = (partner: string, verdict: Verdict) => `cdrs:audit:p:${partner}:${verdict}`;
const byVerdict = (verdict: Verdict) => `cdrs:audit:v:${verdict}`;

/** A CDR waiting to be audited: the CDR as it passed, and who it passed with. */
export interface QueuedCdr {
  key: string;
  direction: Direction;
  /** the partner it came from (received); for ours, found when audited */
  partner?: string;
  version?: VersionNumber;
  cdr: Cdr;
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

/** What `cdrs:audit` holds under a key: the queued CDR, then its audit. */
type Kept = QueuedCdr | KeptAudit;
const isQueued = (kept: Kept): kept is QueuedCdr => "cdr" in kept;

export class AuditStore {
  /** nothing is left in EARLIER_QUEUE (no release writes it any more) */
  private earlierQueueEmpty = false;

  constructor(private readonly store: Store) {}

  /** Queues a CDR the first time it is seen; false when it was seen before. */
  async enqueue(entry: QueuedCdr, now = Date.now()): Promise<boolean> {
    return this.store.putIfAbsent(RESULTS, entry.key, entry, PENDING + now);
  }

  /** The oldest queued CDRs: the head of the collection, up to its first audit (one entry read when none is queued). */
  async next(limit: number): Promise<QueuedCdr[]> {
    await this.adoptEarlierQueue(limit);
    const head = await this.store.range<Kept>(RESULTS, { offset: 0, limit: 1 });
    if (!head.items.length || !isQueued(head.items[0])) return [];
    const page = await this.store.range<Kept>(RESULTS, { offset: 0, limit });
    return page.items.filter(isQueued);
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

  async queued(): Promise<number> {
    return (await this.store.range(RESULTS, { to: 0, offset: 0, limit: 1 })).total;
  }

  /** The audit of this key, its re-pricing in words; none while its CDR waits. */
  async get(key: string): Promise<CdrAudit | undefined> {
    const kept = await this.store.get<Kept>(RESULTS, key);
    return kept && !isQueued(kept) ? explained(kept) : undefined;
  }

  /** The audits of CDRs with this id under any of `owners` (our parties and partners'), in either direction. */
  async byId(id: string, owners: readonly PartyRef[]): Promise<CdrAudit[]> {
    const keys = owners.flatMap((owner) => (["received", "sent"] as const).map((direction) => auditKey(direction, owner, id)));
    return (await Promise.all([...new Set(keys)].map((key) => this.get(key)))).filter((a): a is CdrAudit => a !== undefined);
  }

  /** Keeps audits in their queued CDRs' place, off the queue: per collection one bulk write. */
  async record(audits: readonly KeptAudit[]): Promise<void> {
    const groups = new Map<string, { key: string; value: unknown; sortKey: number }[]>();
    const add = (collection: string, key: string, value: unknown, sortKey: number) => {
      const list = groups.get(collection) ?? [];
      list.push({ key, value, sortKey });
      groups.set(collection, list);
    };
    for (const audit of audits) {
      const at = Date.parse(audit.audited_at);
      const partner = audit.partner ?? NO_PARTNER;
      add(RESULTS, audit.key, audit, at);
      add(byPartner(partner), audit.key, audit.key, at);
      add(byPartnerVerdict(partner, audit.verdict), audit.key, audit.key, at);
      add(byVerdict(audit.verdict), audit.key, audit.key, at);
    }
    // the lists first, the audits last: the audits' write takes the CDRs off the queue, so a write that fails
    // before it (Redis runs them one by one) leaves them queued, to be audited and listed again, never unlisted
    const { [RESULTS]: results, ...lists } = Object.fromEntries(groups);
    await this.store.batch(async () => {
      await Promise.all(Object.entries(lists).map(([collection, entries]) => this.store.putAll(collection, entries)));
      await this.store.putAll(RESULTS, results ?? []);
    });
  }

  /** A page of summaries, oldest audit first (every list of the gateway is ordered by its sort key). */
  async list(query: AuditQuery): Promise<{ items: AuditSummary[]; total: number }> {
    const collection =
      query.partner !== undefined
        ? query.verdict
          ? byPartnerVerdict(query.partner, query.verdict)
          : byPartner(query.partner)
        : query.verdict
          ? byVerdict(query.verdict)
          : undefined;
    // never below 0, where the queued CDRs sort
    const since = query.since === undefined ? undefined : Math.max(query.since, 0);
    const range = { ...(since !== undefined ? { from: since } : {}), offset: query.offset, limit: query.limit };
    if (collection) {
      // a row is an audit's key; one an earlier release wrote is the audit's summary itself
      const rows = await this.store.range<string | AuditSummary>(collection, range);
      const found = await Promise.all(rows.items.map((row) => (typeof row === "string" ? this.store.get<Kept>(RESULTS, row) : row)));
      const summaries = found.map((a) => (a === undefined || "cdr" in a ? undefined : "owner" in a ? summaryOf(a) : a));
      return { items: summaries.filter((a): a is AuditSummary => a !== undefined), total: rows.total };
    }
    // audits only: the queued CDRs sort before 0 (a bounded range: the store counts it for the page's total)
    const page = await this.store.range<KeptAudit>(RESULTS, { ...range, from: since ?? 0 });
    return { items: page.items.map(summaryOf), total: page.total };
  }

  /** How many of the partner's CDRs were audited since `since`, and how many of them mismatch. */
  async counts(partner: string, since: number): Promise<{ audited: number; mismatches: number }> {
    const [all, mismatches] = await Promise.all([
      this.store.range(byPartner(partner), { from: since, offset: 0, limit: 1 }),
      this.store.range(byPartnerVerdict(partner, "mismatch"), { from: since, offset: 0, limit: 1 }),
    ]);
    return { audited: all.total, mismatches: mismatches.total };
  }
}
