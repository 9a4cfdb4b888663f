import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../store/port";
import type { BackgroundService } from "../background";
import type { Outbox, OutboxMessage, OutboundRequest } from "./outbox";
import { isRetryable, retryDelay, type RetryPolicy } from "./retry-policy";

export type OutboundSender = (partnerId: string, request: OutboundRequest) => Promise<void>;

export interface OutboxEvents {
  delivered?(message: OutboxMessage): void;
  rejected?(message: OutboxMessage, error: unknown): void;
  /** the partner's backlog was dropped; it needs a full resync when it is back */
  resyncNeeded?(partnerId: string): void | Promise<void>;
}

const LOCK_TTL_MS = 30_000;

/**
 * Delivers the outbox: one partner's queue at a time per instance, under a
 * store lock so several instances never deliver the same queue at once.
 * Strict FIFO per partner keeps the order per object; a failing head holds
 * its queue back (the partner is usually down as a whole) with exponential
 * backoff; a 2xxx rejection is logged, counted and dropped.
 */
export class OutboxWorker implements BackgroundService {
  readonly name = "outbox";
  private readonly owner = randomUUID();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly store: Store,
    private readonly send: OutboundSender,
    private readonly policy: RetryPolicy,
    private readonly log: Logger,
    private readonly events: OutboxEvents = {},
    private readonly pollMs = 500,
  ) {
    outbox.onEnqueue(() => this.kick());
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Runs a delivery pass now, or right after the one under way. */
  kick(): void {
    if (this.stopped) return;
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
    for (const partnerId of await this.outbox.partners()) {
      if (this.stopped) return;
      const lock = `outbox:${partnerId}`;
      if (!(await this.store.acquireLock(lock, this.owner, LOCK_TTL_MS))) continue;
      try {
        await this.deliverQueue(partnerId, lock);
      } finally {
        await this.store.releaseLock(lock, this.owner);
      }
    }
  }

  private async deliverQueue(partnerId: string, lock: string): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const head = await this.outbox.head(partnerId);
      if (!head) return this.outbox.retire(partnerId);
      if (head.nextAttemptAt > Date.now()) return;
      const message = await this.outbox.claim(head);
      if (!message) continue;
      try {
        await this.send(partnerId, message.request);
        await this.outbox.remove(message);
        this.events.delivered?.(message);
      } catch (error) {
        if (!isRetryable(error)) {
          this.log.warn({ partner: partnerId, message: message.label, error: (error as Error).message }, "push rejected by partner; dropped");
          await this.outbox.remove(message);
          this.events.rejected?.(message, error);
          continue;
        }
        const failed = await this.outbox.failed(message, (error as Error).message, Date.now() + retryDelay(this.policy, message.attempts));
        this.log.info({ partner: partnerId, message: message.label, attempts: failed?.attempts, error: (error as Error).message }, "delivery failed; will retry");
        if (failed?.firstFailureAt !== undefined && Date.now() - failed.firstFailureAt > this.policy.backlogWindowMs) await this.dropBacklog(partnerId);
        return;
      }
      await this.store.renewLock(lock, this.owner, LOCK_TTL_MS);
    }
  }

  /** Superseded updates are not replayed after a long outage: the partner gets a full resync instead. */
  private async dropBacklog(partnerId: string): Promise<void> {
    const { items } = await this.outbox.pending(partnerId);
    let dropped = 0;
    for (const message of items) {
      if (message.essential) continue;
      await this.outbox.remove(message);
      dropped++;
    }
    this.log.warn({ partner: partnerId, dropped }, "partner unreachable beyond the backlog window; backlog dropped, full resync scheduled");
    await this.events.resyncNeeded?.(partnerId);
  }
}
