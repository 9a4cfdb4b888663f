import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../contract/store";
import { storeUnavailableIn } from "../contract/store-unavailable";

/**
 * pending: waiting for its outcome until `deadline`;
 * settling: the outcome is decided and being delivered (by whoever holds `leaseUntil`);
 * done: delivered, or closed without one (kept a while so late outcomes are recognised).
 */
export type PendingState = "pending" | "settling" | "done";

export interface PendingEntry<T = unknown, R = unknown> {
  id: string;
  state: PendingState;
  data: T;
  openedAt: number;
  /** epoch ms at which a pending entry times out */
  deadline: number;
  outcome?: R;
  /** the outcome is the kind's timeout outcome: nobody reported one in time */
  timedOut?: boolean;
  /** while settling: the instance that settled it delivers until then; afterwards any instance takes over */
  leaseUntil?: number;
  /** while settling: a random token of the step that moved it there, by which that step knows its own write */
  claim?: string;
  finishedAt?: number;
}

/** A kind of asynchronous request (a received command, a sent charging-profile request…) and what finishing one means. */
export interface PendingKind<T, R> {
  readonly name: string;
  /** the outcome when nobody reported one before the deadline */
  timeoutOutcome(entry: PendingEntry<T, R>): R;
  /**
   * Makes the outcome happen: enqueue the callback, hand the result to the
   * adapter. Runs on the instance that won the entry; when it fails or the
   * instance dies, it runs again once the lease has expired. When it fails
   * with the store unavailable it is repeated after a short pause, until it
   * succeeds (within the lease): a failed store write may have been applied
   * all the same, so it must be idempotent (Outbox: a stable `id` per entry).
   */
  deliver(entry: PendingEntry<T, R>, outcome: R): Promise<void>;
}

/** What became of an outcome offered for an entry. */
export type Settlement = "settled" | "finished" | "unknown";

export interface PendingRequestsOptions {
  /** how long the winner may take to deliver before another instance retries */
  leaseMs?: number;
  /** how long finished entries are kept (late outcomes get "finished", not "unknown") */
  retentionMs?: number;
}

const DEFAULT_LEASE_MS = 30_000;
/** pause between attempts of a step that failed with the store unavailable (doubling up to the max) */
const OUTAGE_RETRY_MIN_MS = 50;
const OUTAGE_RETRY_MAX_MS = 1000;
/** background retries start no attempt later than this before the lease ends (then another instance may take the entry over) */
const LEASE_MARGIN_MS = 5_000;
const DEFAULT_RETENTION_MS = 24 * 60 * 60_000;
/** entries handled per kind and sweep; the rest come next sweep */
const SWEEP_BATCH = 100;

const collectionOf = (kind: string): string => `async:${kind}`;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Durable pending asynchronous requests: a request that is answered now and
 * whose outcome follows later (commands, charging profiles). Each entry lives
 * in the gateway's store, indexed by the time something must next happen to
 * it (deadline, lease expiry, purge), so restarts lose nothing and every
 * instance on one Redis sees the same entries. Exactly one outcome wins per
 * entry: the first to move it out of `pending` in one atomic store update,
 * whether a reported result or the timeout.
 */
export class PendingRequests {
  private readonly kinds = new Map<string, PendingKind<any, any>>();
  private readonly leaseMs: number;
  private readonly retentionMs: number;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    options: PendingRequestsOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  /** Entries of a kind are timed out and redelivered only once it is registered. */
  register<T, R>(kind: PendingKind<T, R>): void {
    this.kinds.set(kind.name, kind);
  }

  /** Starts waiting for an outcome; false when the id is taken. */
  open<T>(kind: string, id: string, data: T, deadline: number): Promise<boolean> {
    const entry: PendingEntry<T> = { id, state: "pending", data, openedAt: Date.now(), deadline };
    return this.store.putIfAbsent(collectionOf(kind), id, entry, deadline);
  }

  get<T, R>(kind: string, id: string): Promise<PendingEntry<T, R> | undefined> {
    return this.store.get<PendingEntry<T, R>>(collectionOf(kind), id);
  }

  /** Changes the data of an entry in any state; undefined when there is none. */
  async modify<T, R>(kind: string, id: string, change: (data: T) => T): Promise<PendingEntry<T, R> | undefined> {
    return this.transition<T, R>(kind, id, (entry) => ({ value: { ...entry, data: change(entry.data) }, sortKey: sortKeyOf(entry, this.retentionMs) }));
  }

  /** Moves the deadline of a pending entry (e.g. to the timeout the partner announced) and changes its data. */
  async reschedule<T>(kind: string, id: string, deadline: number, change: (data: T) => T = (d) => d): Promise<boolean> {
    const entry = await this.transition<T, unknown>(kind, id, (current) =>
      current.state === "pending" ? { value: { ...current, deadline, data: change(current.data) }, sortKey: deadline } : undefined,
    );
    return entry !== undefined;
  }

  /** Finishes a pending entry without an outcome (the request was declined at once); false when it was no longer pending. */
  async close<T>(kind: string, id: string, change: (data: T) => T = (d) => d): Promise<boolean> {
    const now = Date.now();
    const entry = await this.transition<T, unknown>(kind, id, (current) =>
      current.state === "pending"
        ? { value: { ...current, state: "done", data: change(current.data), finishedAt: now }, sortKey: now + this.retentionMs }
        : undefined,
    );
    return entry !== undefined;
  }

  /**
   * Offers an outcome. The first outcome for a pending entry wins and is
   * delivered before this resolves ("settled"; a failed delivery is retried
   * by the sweep, the outcome is kept); later ones get "finished". Past the
   * deadline the timeout wins, even when no sweep has come by yet.
   * `afterClose`: an entry closed without an outcome takes one too, as if it
   * were still pending (a request we sent whose answer failed or declined,
   * for which the partner reports an outcome all the same).
   */
  async settle<R>(kind: string, id: string, outcome: R, options: { afterClose?: boolean } = {}): Promise<Settlement> {
    const now = Date.now();
    const handler = this.kinds.get(kind);
    let late = false;
    const won = await this.claimFor<unknown, R>(kind, id, (current) => {
      const closed = current.state === "done" && current.outcome === undefined && !current.timedOut;
      if (options.afterClose && closed) return this.settling({ ...current, outcome }, now);
      if (current.state !== "pending") return undefined;
      late = handler !== undefined && current.deadline <= now;
      return this.settling(late ? { ...current, outcome: handler!.timeoutOutcome(current), timedOut: true } : { ...current, outcome }, now);
    });
    if (won) await this.deliver(kind, won);
    if (won && !late) return "settled";
    return (await this.get(kind, id)) ? "finished" : "unknown";
  }

  /** Names of the kinds registered on this instance (for metrics and the status page). */
  kindNames(): string[] {
    return [...this.kinds.keys()];
  }

  /**
   * How many entries of a kind are in each state (of the first `limit`), and how many are pending per
   * partner (entries whose data names a `partnerId`), for metrics and the status page.
   */
  async count(kind: string, limit = 10_000): Promise<Record<PendingState, number> & { byPartner: Record<string, number> }> {
    const counts = { pending: 0, settling: 0, done: 0, byPartner: {} as Record<string, number> };
    const { items } = await this.store.range<PendingEntry>(collectionOf(kind), { offset: 0, limit });
    for (const entry of items) {
      counts[entry.state]++;
      const partner = (entry.data as { partnerId?: unknown } | undefined)?.partnerId;
      if (entry.state === "pending" && typeof partner === "string") counts.byPartner[partner] = (counts.byPartner[partner] ?? 0) + 1;
    }
    return counts;
  }

  /** Times out what is overdue, takes over deliveries whose lease expired, forgets old finished entries. */
  async sweep(now = Date.now()): Promise<void> {
    for (const kind of this.kinds.keys()) {
      const due = await this.store.range<PendingEntry>(collectionOf(kind), { to: now + 1, offset: 0, limit: SWEEP_BATCH });
      for (const entry of due.items) await this.handleDue(kind, entry.id, now);
    }
  }

  private async handleDue(kind: string, id: string, now: number): Promise<void> {
    const handler = this.kinds.get(kind)!;
    let finishedAndExpired = false;
    const claimed = await this.claimFor<unknown, unknown>(kind, id, (current) => {
      finishedAndExpired = current.state === "done" && (current.finishedAt ?? 0) + this.retentionMs <= now;
      if (current.state === "pending" && current.deadline <= now)
        return this.settling({ ...current, outcome: handler.timeoutOutcome(current), timedOut: true }, now);
      if (current.state === "settling" && (current.leaseUntil ?? 0) <= now) return this.settling(current, now);
      return undefined;
    });
    if (claimed) await this.deliver(kind, claimed);
    else if (finishedAndExpired) await this.store.delete(collectionOf(kind), id);
  }

  private settling<T, R>(entry: PendingEntry<T, R>, now: number) {
    const leaseUntil = now + this.leaseMs;
    return { value: { ...entry, state: "settling" as const, leaseUntil }, sortKey: leaseUntil };
  }

  /**
   * A transition to `settling` (the entry's outcome is won), carrying a random token. Issue #8 (results
   * delivered once across a Redis Cluster failover): a store write can fail and yet have been applied (its
   * master took it, then died after a replica had it, or no replica acknowledged it in time). Then, while the
   * error goes to the caller, the entry is read again in the background until the store answers: when it
   * holds this token, the outcome was won here after all and is delivered now, instead of by a sweep once
   * the lease has expired. Nothing else is written: a caller told the store is unavailable may report again.
   */
  private async claimFor<T, R>(
    kind: string,
    id: string,
    step: (current: PendingEntry<T, R>) => { value: PendingEntry<T, R>; sortKey: number } | undefined,
  ): Promise<PendingEntry<T, R> | undefined> {
    const claim = randomUUID();
    const until = Date.now() + this.leaseMs - Math.min(LEASE_MARGIN_MS, this.leaseMs / 4);
    try {
      return await this.transition<T, R>(kind, id, (current) => {
        const decision = step(current);
        return decision && { value: { ...decision.value, claim }, sortKey: decision.sortKey };
      });
    } catch (error) {
      if (storeUnavailableIn(error)) {
        this.inBackground(async () => {
          const entry = await this.untilStored(until, () => this.get<T, R>(kind, id));
          if (entry?.state === "settling" && entry.claim === claim) await this.deliver(kind, entry);
        });
      }
      throw error;
    }
  }

  /** Runs `work`, again while it fails with the store unavailable, until `until`; then its error propagates. */
  private async untilStored<V>(until: number, work: () => Promise<V>): Promise<V> {
    for (let delay = OUTAGE_RETRY_MIN_MS; ; delay = Math.min(delay * 2, OUTAGE_RETRY_MAX_MS)) {
      try {
        return await work();
      } catch (error) {
        if (!storeUnavailableIn(error) || Date.now() + delay >= until) throw error;
      }
      await pause(delay);
    }
  }

  /** Work that goes on after the call that started it has answered; a failure is logged (the sweep takes over). */
  private inBackground(work: () => Promise<void>): void {
    void work().catch((error) => {
      const level = storeUnavailableIn(error) ? "warn" : "error";
      this.log[level]({ err: error }, "an asynchronous request's outcome is left to the sweep, once its lease has expired");
    });
  }

  /**
   * Delivers a won outcome, then marks the entry done. Issue #8 (results delivered once across a Redis
   * Cluster failover): when the store fails meanwhile, the step that failed is retried in the background
   * until the store confirms it, within the lease (which keeps other instances off it): giving up would
   * leave the entry to a sweep once the lease has expired, later, running the kind's deliver again. A
   * delivery that went through is not repeated, only the step after it; one that failed is (the kind's
   * deliver is idempotent).
   */
  private async deliver<T, R>(kind: string, entry: PendingEntry<T, R>): Promise<void> {
    const handler = this.kinds.get(kind);
    if (!handler) {
      this.log.warn({ kind, id: entry.id }, "outcome of an asynchronous request kept: this instance does not serve its kind");
      return;
    }
    let delivered = false;
    const attempt = async () => {
      if (!delivered) await handler.deliver(entry, entry.outcome as R);
      delivered = true;
      const now = Date.now();
      await this.transition<T, R>(kind, entry.id, (current) =>
        current.state === "settling" && current.claim === entry.claim
          ? { value: { ...current, state: "done", finishedAt: now }, sortKey: now + this.retentionMs }
          : undefined,
      );
    };
    try {
      await attempt();
      return;
    } catch (error) {
      if (!storeUnavailableIn(error)) {
        this.log.error({ err: error, kind, id: entry.id }, "delivering the outcome of an asynchronous request failed; it is retried when the lease expires");
        return;
      }
      // the store reports the outage itself (once); this only delays the delivery
      this.log.warn({ kind, id: entry.id, delivered }, "the store failed while delivering the outcome of an asynchronous request; retried until it confirms it");
    }
    const until = (entry.leaseUntil ?? Date.now() + this.leaseMs) - Math.min(LEASE_MARGIN_MS, this.leaseMs / 4);
    this.inBackground(() => this.untilStored(until, attempt));
  }

  /** One atomic step of an entry; resolves to the entry written, or undefined when `step` declined (or there is none). */
  private async transition<T, R>(
    kind: string,
    id: string,
    step: (current: PendingEntry<T, R>) => { value: PendingEntry<T, R>; sortKey: number } | undefined,
  ): Promise<PendingEntry<T, R> | undefined> {
    let wrote = false;
    const result = await this.store.update<PendingEntry<T, R>>(collectionOf(kind), id, (current) => {
      const decision = current ? step(current) : undefined;
      wrote = decision !== undefined;
      return decision;
    });
    return wrote ? result : undefined;
  }
}

/** The index position of an unchanged state: when something must next happen to the entry. */
const sortKeyOf = (entry: PendingEntry<any, any>, retentionMs: number): number =>
  entry.state === "pending" ? entry.deadline : entry.state === "settling" ? (entry.leaseUntil ?? 0) : (entry.finishedAt ?? 0) + retentionMs;
