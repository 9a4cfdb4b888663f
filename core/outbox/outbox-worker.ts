import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../store/port";
import type { BackgroundService } from "../background";
import type { Outbox, OutboxCounts, OutboxMessage, OutboundRequest } from "./outbox";
import { isRetryable, retryDelay, type RetryPolicy } from "./retry-policy";

export type OutboundSender = (partnerId: string, request: OutboundRequest) => Promise<void>;

export interface OutboxEvents {
  delivered?(message: OutboxMessage): void | Promise<void>;
  rejected?(message: OutboxMessage, error: unknown): void | Promise<void>;
  /** the partner's backlog was dropped; it needs a full resync when it is back */
  resyncNeeded?(partnerId: string): void | Promise<void>;
}

export interface OutboxWorkerOptions {
  /** fallback poll, for messages other instances enqueued (this instance's enqueues wake it at once) */
  pollMs?: number;
  /** partner queues delivered at the same time */
  parallelQueues?: number;
}

const LOCK_TTL_MS = 30_000;
/** messages read from a queue's head at once */
const BATCH = 100;

/**
 * Delivers the outbox: partners' queues side by side, each under a store
 * lock so several instances never deliver the same queue at once. Strict
 * FIFO per partner keeps the order per object; a failing head holds its
 * queue back (the partner is usually down as a whole) with exponential
 * backoff; a 2xxx rejection is logged, counted and dropped.
 */
export class OutboxWorker implements BackgroundService {
  readonly name = "outbox";
  private readonly owner = randomUUID();
  private readonly pollMs: number;
  private readonly parallelQueues: number;
  private timer?: NodeJS.Timeout;
  private wakeUp?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private started = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly store: Store,
    private readonly send: OutboundSender,
    private readonly policyOf: (partnerId: string) => RetryPolicy,
    private readonly log: Logger,
    private readonly events: OutboxEvents = {},
    options: OutboxWorkerOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.parallelQueues = options.parallelQueues ?? 16;
    outbox.onEnqueue(() => this.kick());
  }

  start(): void {
    this.started = true;
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    if (this.wakeUp) clearTimeout(this.wakeUp);
    await this.running;
  }

  /** Runs a delivery pass now, or right after the one under way; nothing before start() (a CLI process only enqueues). */
  kick(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((error) => this.log.error({ err: error }, "outbox pass failed"))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves once every queue is empty or waiting for a retry (tests and graceful shutdown use it). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async pass(): Promise<void> {
    const partners = await this.outbox.partners();
    let nextRetry = Infinity;
    const lanes = Array.from({ length: Math.min(this.parallelQueues, partners.length) }, async () => {
      for (let partnerId = partners.shift(); partnerId !== undefined && this.started; partnerId = partners.shift()) {
        // reads first: an empty queue, or one waiting for its retry, needs no lock
        const head = await this.outbox.head(partnerId);
        if (!head) {
          await this.outbox.retire(partnerId);
          continue;
        }
        if (head.nextAttemptAt > Date.now()) {
          nextRetry = Math.min(nextRetry, head.nextAttemptAt);
          continue;
        }
        const lock = `outbox:${partnerId}`;
        if (!(await this.store.acquireLock(lock, this.owner, LOCK_TTL_MS))) continue;
        try {
          nextRetry = Math.min(nextRetry, await this.deliverQueue(partnerId, lock));
        } finally {
          await this.store.releaseLock(lock, this.owner);
        }
      }
    });
    await Promise.all(lanes);
    this.scheduleRetry(nextRetry);
  }

  /** Retries come due between polls: wake up then rather than at the next poll. */
  private scheduleRetry(at: number): void {
    if (this.wakeUp) clearTimeout(this.wakeUp);
    if (!this.started || at === Infinity) return;
    this.wakeUp = setTimeout(() => this.kick(), Math.max(0, at - Date.now()));
    this.wakeUp.unref();
  }

  /** Delivers the queue until it is empty or its head must wait; resolves to when it is due again (Infinity: not waiting). */
  private async deliverQueue(partnerId: string, lock: string): Promise<number> {
    const counts: OutboxCounts = { delivered: 0, rejected: 0, dropped: 0 };
    let renewedAt = Date.now();
    try {
      for (;;) {
        const { items } = await this.outbox.pending(partnerId, BATCH);
        if (items.length === 0) {
          await this.outbox.retire(partnerId);
          return Infinity;
        }
        for (const head of items) {
          if (!this.started) return Infinity;
          if (head.nextAttemptAt > Date.now()) return head.nextAttemptAt;
          const message = await this.outbox.claim(head);
          // gone, or collapsed to the tail since it was read: re-read the head
          if (!message) break;
          const retryAt = await this.deliver(message, counts);
          if (retryAt !== undefined) return retryAt;
          if (Date.now() - renewedAt > LOCK_TTL_MS / 3) {
            await this.store.renewLock(lock, this.owner, LOCK_TTL_MS);
            renewedAt = Date.now();
          }
        }
      }
    } finally {
      await this.outbox.count(partnerId, counts);
    }
  }

  /** One delivery attempt; resolves to when to retry, or undefined when the message is done with. */
  private async deliver(message: OutboxMessage, counts: OutboxCounts): Promise<number | undefined> {
    const { partnerId } = message;
    try {
      await this.send(partnerId, message.request);
    } catch (error) {
      if (!isRetryable(error)) {
        this.log.warn({ partner: partnerId, message: message.label, error: (error as Error).message }, "push rejected by partner; dropped");
        await this.outbox.remove(message);
        counts.rejected++;
        await this.events.rejected?.(message, error);
        return undefined;
      }
      const policy = this.policyOf(partnerId);
      const retryAt = Date.now() + retryDelay(policy, message.attempts);
      const failed = await this.outbox.failed(message, (error as Error).message, retryAt);
      this.log.info({ partner: partnerId, message: message.label, attempts: failed?.attempts, error: (error as Error).message }, "delivery failed; will retry");
      if (failed?.firstFailureAt !== undefined && Date.now() - failed.firstFailureAt > policy.backlogWindowMs)
        counts.dropped += await this.dropBacklog(partnerId);
      return retryAt;
    }
    await this.outbox.remove(message);
    counts.delivered++;
    await this.events.delivered?.(message);
    return undefined;
  }

  /** Superseded updates are not replayed after a long outage: the partner gets a full resync instead. */
  private async dropBacklog(partnerId: string): Promise<number> {
    const { items } = await this.outbox.pending(partnerId);
    let dropped = 0;
    for (const message of items) {
      if (message.essential) continue;
      await this.outbox.remove(message);
      dropped++;
    }
    if (dropped > 0) this.log.warn({ partner: partnerId, dropped }, "partner unreachable beyond the backlog window; backlog dropped, full resync scheduled");
    await this.events.resyncNeeded?.(partnerId);
    return dropped;
  }
}
