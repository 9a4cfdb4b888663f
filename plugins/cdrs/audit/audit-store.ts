import type { ListedKey, Store } from "../../../core/contract/store";
import type { Cdr } from "../model";
import { VERDICTS, auditKey, type CdrAudit, type Direction, type KeptAudit, type Verdict } from "./model";
import { explained } from "./explain";
import type { PartyRef } from "../../../core/protocol/types";
import type { VersionNumber } from "../../../core/protocol/types";

/**
 * The CDR audit in the gateway's store (any store: SQLite, Redis, Redis
 * Cluster; no write spans collections but in a batch):
 * - `cdrs:audit`: every CDR queued, by audit key, written once (so each is audited once): while it waits, the
 *   queued CDR, at a sort key before every audit's (`PENDING`: the queue, oldest first, is the head of the
 *   collection); once audited, its audit in its place, at the time it was made. Auditing a CDR thus rewrites
 *   one entry, where a queue of its own cost a second entry to queue it and a delete to take it off
 *   (bench/RESULTS.md "CDR audit");
 * - `cdrs:audit:p:<partner>`, `…:p:<partner>:<verdict>`, `…:v:<verdict>`: the lists, lists of keys of the store
 *   (Store.keyLists), each key listed at the audit's time (a list page reads its audits by key); a key list costs the
 *   worker about half of a collection of the audits' keys, which they were until 2026-12 and are taken over from.
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
/** the lists' keys, each in its three lists at the audit's time */
const listedKeys = (audit: Pick<AuditSummary, "key" | "partner" | "verdict" | "audited_at">): ListedKey[] => {
  const [partner, sortKey] = [audit.partner ?? NO_PARTNER, Date.parse(audit.audited_at)];
  return [byPartner(partner), byPartnerVerdict(partner, audit.verdict), byVerdict(audit.verdict)].map((list) => ({ list, key: audit.key, sortKey }));
};
/** the mark that the lists an earlier release kept as collections were taken over (`adoptEarlierLists`) */
const ADOPTED = { collection: "cdrs:audit:adopted", key: "lists" };

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
  /** how far the lists an earlier release kept as collections are taken over: `adopted`, or the next page's verdict list and offset */
  private earlierLists: "adopted" | { verdict: number; offset: number } | undefined;

  constructor(private readonly store: Store) {}

  /** Queues a CDR the first time it is seen; false when it was seen before. */
  async enqueue(entry: QueuedCdr, now = Date.now()): Promise<boolean> {
    return this.store.putIfAbsent(RESULTS, entry.key, entry, PENDING + now);
  }

  /** The oldest queued CDRs: the head of the collection, up to its first audit (one entry read when none is queued). */
  async next(limit: number): Promise<QueuedCdr[]> {
    await this.adoptEarlierQueue(limit);
    await this.adoptEarlierLists(limit);
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

  /**
   * The audits an earlier release listed in collections of their keys (or summaries), listed again as key lists: up to
   * a page of its verdict lists (which hold every audit) each time the worker asks for more; then a mark that they were.
   */
  private async adoptEarlierLists(limit: number): Promise<void> {
    if (this.earlierLists === "adopted") return;
    this.earlierLists ??= (await this.store.get<boolean>(ADOPTED.collection, ADOPTED.key)) ? "adopted" : { verdict: 0, offset: 0 };
    if (this.earlierLists === "adopted") return;
    for (let { verdict, offset } = this.earlierLists; verdict < VERDICTS.length; [verdict, offset] = [verdict + 1, 0]) {
      const rows = await this.store.range<string | AuditSummary>(byVerdict(VERDICTS[verdict]), { offset, limit });
      const found = await Promise.all(rows.items.map((row) => (typeof row === "string" ? this.store.get<Kept>(RESULTS, row) : row)));
      await this.store.keyLists.add(found.flatMap((a) => (a === undefined || "cdr" in a ? [] : listedKeys(a))));
      // a full page: the next when the worker asks for more again
      if (rows.items.length === limit) return void (this.earlierLists = { verdict, offset: offset + limit });
    }
    await this.store.put(ADOPTED.collection, ADOPTED.key, true);
    this.earlierLists = "adopted";
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
    // the lists first, the audits last: the audits' write takes the CDRs off the queue, so a write that fails
    // before it (Redis runs them one by one) leaves them queued, to be audited and listed again, never unlisted
    await this.store.batch(async () => {
      await this.store.keyLists.add(audits.flatMap(listedKeys));
      await this.store.putAll(RESULTS, audits.map((audit) => ({ key: audit.key, value: audit, sortKey: Date.parse(audit.audited_at) })));
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
      const rows = await this.store.keyLists.range(collection, range);
      const found = await Promise.all(rows.items.map((key) => this.store.get<Kept>(RESULTS, key)));
      return { items: found.filter((a): a is KeptAudit => a !== undefined && !isQueued(a)).map(summaryOf), total: rows.total };
    }
    // audits only: the queued CDRs sort before 0 (a bounded range: the store counts it for the page's total)
    const page = await this.store.range<KeptAudit>(RESULTS, { ...range, from: since ?? 0 });
    return { items: page.items.map(summaryOf), total: page.total };
  }

  /** How many of the partner's CDRs were audited since `since`, and how many of them mismatch. */
  async counts(partner: string, since: number): Promise<{ audited: number; mismatches: number }> {
    const [all, mismatches] = await Promise.all([
      this.store.keyLists.range(byPartner(partner), { from: since, offset: 0, limit: 0 }),
      this.store.keyLists.range(byPartnerVerdict(partner, "mismatch"), { from: since, offset: 0, limit: 0 }),
    ]);
    return { audited: all.total, mismatches: mismatches.total };
  }
}
