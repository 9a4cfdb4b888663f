/** One read's answer in a leased batch, used by readers asking before `until` (performance.now()). */
interface Leased<T> {
  until: number;
  answer: Promise<T>;
  /** the answer, once it came in (resolved) */
  settled?: { value: T };
}

/**
 * The answers of leased batches (RedisSharedReads in core/store/shared-reads.ts), by the id of the read they
 * answer. A reader asking before a lease ends takes its answer: the promise (`answer`) or, once it came in,
 * the value itself (`value`), so that a request whose reads are all answered waits for nothing. Every
 * answer is used only within the lease of the batch that read it, either way: what the leases promise
 * (SharedReads) does not depend on how a reader takes the answer.
 */
export class LeasedAnswers<T> {
  private readonly held = new Map<string, Leased<T>>();

  /** The promise a reader asking now for `id` takes, or undefined: none runs (read it in the next batch). */
  answer(id: string): Promise<T> | undefined {
    const held = this.held.get(id);
    return held && performance.now() < held.until ? held.answer : undefined;
  }

  /** What a reader asking now for `id` takes, when it came in already; undefined when it would wait. */
  value(id: string): { value: T } | undefined {
    const held = this.held.get(id);
    return held?.settled && performance.now() < held.until ? held.settled : undefined;
  }

  /** A batch sent now leases its read `id` until `until`; `answer` is the read's promise. Settle it with settled or failed. */
  lease(id: string, answer: Promise<T>, until: number): Leased<T> {
    const lease: Leased<T> = { until, answer };
    this.held.set(id, lease);
    return lease;
  }

  /** The leased read came in with `value`. */
  settled(lease: Leased<T>, value: T): void {
    lease.settled = { value };
  }

  /** The leased read `id` failed: not used again (what a failed read answers is the next batch's to say). */
  failed(id: string, lease: Leased<T>): void {
    if (this.held.get(id) === lease) this.held.delete(id);
  }

  /** Drops every answer, those still on their way included (a write of this instance, a lost connection). */
  clear(): void {
    this.held.clear();
  }
}
