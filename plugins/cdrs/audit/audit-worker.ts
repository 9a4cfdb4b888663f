import { setImmediate as yieldToRequests, setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { BackgroundService } from "../../../core/contract/background";
import type { Store } from "../../../core/contract/store";
import { Lease } from "../../../core/sync/lease";
import { auditKept, unreadableAudit } from "./audit-cdr";
import type { AuditInputs } from "./audit-inputs";
import type { AuditStore } from "./audit-store";
import type { KeptAudit } from "./model";
import type { AuditContext } from "./audit-cdr";
import type { QueuedCdr } from "./audit-store";

const LOCK = "cdrs:audit:worker";

/** The CDR's audit, or, when the audit cannot read it, its unreadable audit (unpriceable with the reason). */
const auditOrFailure = (entry: QueuedCdr, ctx: AuditContext, log: Logger): KeptAudit => {
  try {
    return auditKept(entry.cdr, ctx);
  } catch (error) {
    log.warn({ err: error, cdr: entry.cdr.id }, "CDR could not be audited");
    return unreadableAudit(entry.key, entry.cdr, ctx, error as Error);
  }
};
const LOCK_TTL_MS = 30_000;

/**
 * The time as ISO text, made once per millisecond: the CDRs audited within one share it (a `new Date().toISOString()`
 * per CDR was 2 % of the audit bench's profiled drain, bench/RESULTS.md "CDR audit").
 */
class Clock {
  private ms = NaN;
  private text = "";

  now(): string {
    const ms = Date.now();
    if (ms !== this.ms) {
      this.ms = ms;
      this.text = new Date(ms).toISOString();
    }
    return this.text;
  }
}

export interface AuditWorkerOptions {
  /** CDRs taken off the queue at once */
  batch: number;
  /** CDRs audited between two yields to the event loop, so requests are answered between them */
  slice: number;
  /** how often the queue is looked at when nothing woke the worker, ms */
  pollMs: number;
  /** the share of the process's time the audit takes while it drains: after a slice that took t ms it rests t × (1 − share) / share */
  share: number;
}

export const DEFAULT_WORKER_OPTIONS: AuditWorkerOptions = { batch: 200, slice: 25, pollMs: 1000, share: 0.5 };

/**
 * Audits the queued CDRs in the background, oldest first, one instance at a
 * time (a store lease): in batches, resting after every `slice` CDRs and
 * after each batch is written, so that it takes at most `share` of the
 * process's time and the requests of partners are answered while it works. Woken when a
 * CDR is queued on this instance, and polls for those queued elsewhere.
 */
export class AuditWorker implements BackgroundService {
  readonly name = "cdr-audit";
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;
  private again = false;
  private stopped = true;

  constructor(
    private readonly store: Store,
    private readonly audits: AuditStore,
    private readonly inputs: AuditInputs,
    private readonly log: Logger,
    private readonly onAudited: (audit: KeptAudit) => void,
    private readonly options: AuditWorkerOptions = DEFAULT_WORKER_OPTIONS,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Something was queued: drain (again, once the current run ends). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => {
        this.log.error({ err: error }, "CDR audit failed; retried at the next poll");
        return 0;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /**
   * Audits everything queued; resolves to how many were audited (0 when another instance holds the lease).
   * `share` (default: the worker's) 1 audits without resting, as a bench of the audit alone does.
   */
  async drain(share = this.options.share): Promise<number> {
    const rest = async (since: number) => {
      const busy = performance.now() - since;
      if (share < 1) await sleep((busy * (1 - share)) / share);
      else await yieldToRequests();
    };
    const lease = await Lease.acquire(this.store, LOCK, LOCK_TTL_MS);
    if (!lease) return 0;
    let audited = 0;
    const clock = new Clock();
    try {
      for (;;) {
        const queued = await this.audits.next(this.options.batch);
        if (!queued.length || lease.lost) return audited;
        const batch = this.inputs.batch();
        const results: KeptAudit[] = [];
        let slice = performance.now();
        await batch.prepare(queued);
        for (const entry of queued) {
          const audit = auditOrFailure(entry, batch.contextOf(entry, clock.now()), this.log);
          batch.audited(audit);
          results.push(audit);
          if (results.length % this.options.slice === 0) {
            await rest(slice);
            slice = performance.now();
          }
        }
        if (lease.lost) return audited;
        await this.audits.record(results);
        for (const audit of results) this.onAudited(audit);
        audited += results.length;
        await rest(slice);
      }
    } finally {
      await lease.release();
    }
  }
}
