/** One read's answer in a leased batch, used by readers asking before `until` (performance.now()). */
interface Leased<T> {
  until: number;
  answer: Promise<T>;
  /** the answer, once it came in (resolved) */
  settled?: { value: T };
  /** asks for the same read in the next batch (SharedReads' batches) */
  repeat: () => unknown;
  /** a later read was asked for after this one */
  renewed?: true;
}

/** A read's leases: the latest answer that came in, and the later reads still on their way, oldest first. */
interface Leases<T> {
  current?: Leased<T>;
  pending: Leased<T>[];
}

/**
 * How often, at most, a busy instance renews a read ahead (a share of the lease): once that long has passed
 * since its latest read was sent, a reader that takes an answer asks for the next one.
 */
const RENEW_EVERY = 0.25;

/**
 * The answers of leased batches (RedisSharedReads in core/store/shared-reads.ts), by the id of the read they
 * answer. A reader asking before a lease ends takes its answer: the promise (`answer`) or, once it came in,
 * the value itself (`value`), so that a request whose reads are all answered waits for nothing.
 *
 * Renewed ahead: a reader that takes an answer asks for the same read in the next batch once a quarter of a
 * lease has passed since the latest such read was sent, so while an instance is busy a read is sent every
 * quarter lease at most, and each answer, as it comes in, takes over from the older ones. A busy event loop
 * (turns of a few ms, a round trip of a turn or two) then always holds an answer whose lease runs, where a
 * renewal sent only once the last answer came in would arrive after that answer's lease ended. Every answer
 * is still used only within the lease of the batch that read it: what the leases promise (SharedReads) is
 * unchanged.
 */
export class LeasedAnswers<T> {
  private readonly reads = new Map<string, Leases<T>>();

  constructor(private readonly leaseMs: number) {}

  /** The promise a reader asking now for `id` takes, or undefined: none runs (read it in the next batch). */
  answer(id: string): Promise<T> | undefined {
    const leases = this.reads.get(id);
    if (!leases) return undefined;
    const now = performance.now();
    const current = this.current(leases, now);
    if (current) return current.answer;
    // none in yet: the oldest read on its way whose lease still runs
    return leases.pending.find((lease) => now < lease.until)?.answer;
  }

  /** What a reader asking now for `id` takes, when it came in already; undefined when it would wait. */
  value(id: string): { value: T } | undefined {
    const leases = this.reads.get(id);
    return leases && this.current(leases, performance.now())?.settled;
  }

  /** A batch sent now leases its read `id` until `until`; `answer` is the read's promise. Settle it with settled or failed. */
  lease(id: string, answer: Promise<T>, until: number, repeat: () => unknown): Leased<T> {
    const lease: Leased<T> = { until, answer, repeat };
    const leases = this.reads.get(id);
    if (leases) leases.pending.push(lease);
    else this.reads.set(id, { pending: [lease] });
    return lease;
  }

  /** The leased read `id` came in with `value`: taken from now on, over every older one. */
  settled(id: string, lease: Leased<T>, value: T): void {
    lease.settled = { value };
    const leases = this.reads.get(id);
    const at = leases ? leases.pending.indexOf(lease) : -1;
    if (!leases || at < 0) return;
    leases.pending.splice(0, at + 1);
    leases.current = lease;
  }

  /** The leased read `id` failed: not used (the answers that came in before still are, until their leases end). */
  failed(id: string, lease: Leased<T>): void {
    const leases = this.reads.get(id);
    const at = leases ? leases.pending.indexOf(lease) : -1;
    if (leases && at >= 0) leases.pending.splice(at, 1);
  }

  /** Drops every answer, those still on their way included (a write of this instance, a lost connection). */
  clear(): void {
    this.reads.clear();
  }

  /** The answer that came in and whose lease runs, renewed ahead when due; undefined when there is none. */
  private current(leases: Leases<T>, now: number): Leased<T> | undefined {
    const current = leases.current;
    if (!current || now >= current.until) return undefined;
    const latest = leases.pending.at(-1) ?? current;
    if (!latest.renewed && now - (latest.until - this.leaseMs) >= this.leaseMs * RENEW_EVERY) {
      latest.renewed = true;
      latest.repeat();
    }
    return current;
  }
}
