import { AsyncLocalStorage } from "node:async_hooks";

/** A write (written()) or a batch (batch()) waiting for the next group commit. */
type Queued = { resolve: (value: unknown) => void; reject: (error: unknown) => void } & ({ operation: () => unknown } | { work: () => Promise<unknown> });

/**
 * The group commit of the SQLite store (core/store/sqlite-store.ts): the writes and batches issued in one turn
 * of the event loop run one after another in one transaction, each resolving once it is committed, instead of
 * a commit each. `guard` runs one synchronous operation (turning an outage into StoreUnavailableError),
 * `begin`, `commit` and `rollback` drive the transaction.
 */
export class GroupCommit {
  /** the group commit under way (flush()): while a batch of it runs, other writers wait until it is committed */
  private openGroup?: { token: object; done: Promise<void> };
  private readonly batchScope = new AsyncLocalStorage<object>();
  /** writes and batches waiting for the next group commit (written(), batch()) */
  private readonly queued: Queued[] = [];
  private closed = false;

  constructor(
    private readonly guard: <R>(operation: () => R) => R,
    private readonly sql: { begin(): void; commit(): void; rollback(): void; inTransaction(): boolean },
  ) {}

  /**
   * Runs `work` with its writes in one transaction (a sync pull stores a
   * page in one commit instead of one per object), the group commit of the
   * writes and batches issued in the same turn (written()): a serial
   * enqueue of outbox messages shares its commit with the worker's claims
   * and removals instead of having one of its own (a commit was about a
   * third of an enqueue's CPU). Only writes made within `work` (its async
   * context) join it; any other write waits until it is committed, so no
   * write that was not part of it can be lost with it. What `work` wrote is
   * committed even when it fails half-way: each write was complete by
   * itself, as without a batch. A commit that fails rolls the group back
   * and rejects (StoreUnavailableError). A batch within a batch joins it.
   */
  async batch<R>(work: () => Promise<R>): Promise<R> {
    if (this.inOpenGroup()) return work();
    await this.turn();
    return new Promise<R>((resolve, reject) => this.enqueueWrite({ work, resolve: resolve as (value: unknown) => void, reject }));
  }

  /**
   * A write: within a batch under way, at once; outside it, once the batch
   * is committed, and then group-committed: the writes and batches issued
   * in one turn of the event loop (concurrent requests, an outbox worker's
   * deliveries, an enqueue) run one after another in one transaction, each
   * resolving once that transaction is committed, instead of a commit each.
   * Each keeps its own outcome: one that throws wrote nothing (every write
   * is one statement after whatever can throw) and fails alone; a commit
   * that fails fails them all.
   */
  async written<R>(operation: () => R): Promise<R> {
    if (this.inOpenGroup()) return this.guard(operation);
    if (this.openGroup) await this.turn();
    return new Promise<R>((resolve, reject) => this.enqueueWrite({ operation, resolve: resolve as (value: unknown) => void, reject }));
  }

  private enqueueWrite(item: Queued): void {
    this.queued.push(item);
    if (this.queued.length === 1) setImmediate(() => void this.flush());
  }

  /** Runs the queued writes and batches (written(), batch()) in one transaction. */
  async flush(): Promise<void> {
    while (this.openGroup) await this.openGroup.done;
    const writes = this.queued.splice(0);
    if (writes.length === 0) return;
    if (this.closed) {
      for (const w of writes) w.reject(new Error("SqliteStore is closed"));
      return;
    }
    const [only] = writes;
    if (writes.length === 1 && "operation" in only) {
      try {
        only.resolve(this.guard(only.operation));
      } catch (error) {
        only.reject(error);
      }
      return;
    }
    const token = {};
    let finished!: () => void;
    this.openGroup = { token, done: new Promise<void>((resolve) => (finished = resolve)) };
    const outcomes: ({ value: unknown } | { error: unknown })[] = [];
    try {
      this.guard(() => this.sql.begin());
      for (const w of writes) {
        try {
          outcomes.push({ value: "operation" in w ? this.guard(w.operation) : await this.batchScope.run(token, w.work) });
        } catch (error) {
          outcomes.push({ error });
        }
      }
      this.guard(() => this.sql.commit());
    } catch (error) {
      try {
        if (this.sql.inTransaction()) this.sql.rollback();
      } catch {
        // a file that could not commit may not roll back either: the writes get the commit's error
      }
      for (const w of writes) w.reject(error);
      return;
    } finally {
      this.openGroup = undefined;
      finished();
    }
    writes.forEach((w, i) => {
      const outcome = outcomes[i];
      if ("error" in outcome) w.reject(outcome.error);
      else w.resolve(outcome.value);
    });
  }

  /** A write outside the group under way waits until it is committed. */
  private async turn(): Promise<void> {
    while (this.openGroup && !this.inOpenGroup()) await this.openGroup.done;
  }

  /** Called from a batch of the group under way (its async context): its writes run at once, in its transaction. */
  private inOpenGroup(): boolean {
    return this.openGroup !== undefined && this.batchScope.getStore() === this.openGroup.token;
  }

  /** Commits what is queued, then refuses every later write. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }
}
