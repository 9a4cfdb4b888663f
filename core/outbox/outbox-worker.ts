import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../store/port";
import type { BackgroundService } from "../background";
import { storeUnavailableIn } from "../store/store-unavailable";
import type { Outbox, OutboxCounts, OutboxMessage, OutboundRequest } from "./outbox";
import { isRetryable, retryDelay, type RetryPolicy } from "./retry-policy";
import { answerOf, describeFailure } from "./partner-answer";

export type OutboundSender = (partnerId: string, request: OutboundRequest) => Promise<void>;

export interface OutboxEvents {
  delivered?(message: OutboxMessage): void | Promise<void>;
  /** the partner refused the message: it was dead-lettered (essential) or dropped */
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
 * Delivers the outbox: partners' queues side by side, each on a lane of its
 * own under a store lock, so several instances never deliver the same queue
 * at once. Strict FIFO per partner keeps the order per object; a failing
 * head holds its queue back (the partner is usually down as a whole) with
 * exponential backoff. A rejection (isRetryable) never holds the queue: an
 * essential message goes to the partner's dead letters, any other is
 * dropped and counted; both logged with the partner's answer.
 */
export class OutboxWorker implements BackgroundService {
  readonly name = "outbox";
  private readonly owner = randomUUID();
  private readonly pollMs: number;
  private readonly parallelQueues: number;
  private timer?: NodeJS.Timeout;
  private wakeUp?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  private again = false;
  private started = false;
  /** partners whose queue this instance is delivering, each on a lane of its own */
  private readonly lanes = new Map<string, Promise<void>>();

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

  /** Stops taking queues and waits for the deliveries under way; what is queued stays in the store. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    if (this.wakeUp) clearTimeout(this.wakeUp);
    await this.drain();
  }

  /** Looks for queues to deliver now, or right after the look under way; nothing before start() (a CLI process only enqueues). */
  kick(): void {
    if (!this.started) return;
    if (this.scanning) {
      this.again = true;
      return;
    }
    this.scanning = this.scan()
      // A store outage is logged once by the store, not at every poll; the next poll after it resumes delivery.
      .catch((error) => {
        if (!storeUnavailableIn(error)) this.log.error({ err: error }, "outbox scan failed");
      })
      .finally(() => {
        this.scanning = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves once nothing is being delivered: every queue is empty or waiting for a retry (tests and graceful shutdown use it). */
  async drain(): Promise<void> {
    while (this.scanning || this.lanes.size > 0) await Promise.all([this.scanning, ...this.lanes.values()]);
  }

  /**
   * Starts a lane for every partner whose queue has a message due and is not
   * delivered yet; a partner with a long backlog thus never holds up the
   * others. A lane that ends looks again, for what came meanwhile.
   */
  private async scan(): Promise<void> {
    let nextRetry = Infinity;
    for (const partnerId of await this.outbox.partners()) {
      if (!this.started || this.lanes.size >= this.parallelQueues) break;
      if (this.lanes.has(partnerId)) continue;
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
      const lane = this.lane(partnerId).then(
        (delivered) => {
          this.lanes.delete(partnerId);
          // a queue another instance holds, or a failing store, is looked at again at the next poll, not at once
          if (delivered) this.kick();
        },
        (error) => {
          this.lanes.delete(partnerId);
          if (!storeUnavailableIn(error)) this.log.error({ err: error, partner: partnerId }, "outbox delivery failed");
        },
      );
      this.lanes.set(partnerId, lane);
    }
    this.scheduleRetry(nextRetry);
  }

  /** Delivers one partner's queue under its store lock; false when another instance holds it (and the queue). */
  private async lane(partnerId: string): Promise<boolean> {
    const lock = `outbox:${partnerId}`;
    if (!(await this.store.acquireLock(lock, this.owner, LOCK_TTL_MS))) return false;
    try {
      await this.deliverQueue(partnerId, lock);
      return true;
    } finally {
      await this.store.releaseLock(lock, this.owner);
    }
  }

  /** Retries come due between polls: wake up then rather than at the next poll. */
  private scheduleRetry(at: number): void {
    if (this.wakeUp) clearTimeout(this.wakeUp);
    if (!this.started || at === Infinity) return;
    this.wakeUp = setTimeout(() => this.kick(), Math.max(0, at - Date.now()));
    this.wakeUp.unref();
  }

  /** Delivers the queue until it is empty or its head must wait for a retry. */
  private async deliverQueue(partnerId: string, lock: string): Promise<void> {
    const counts: OutboxCounts = { delivered: 0, rejected: 0, dropped: 0 };
    let renewedAt = Date.now();
    try {
      for (;;) {
        const { items } = await this.outbox.pending(partnerId, BATCH);
        if (items.length === 0) return;
        for (const head of items) {
          if (!this.started || head.nextAttemptAt > Date.now()) return;
          const message = await this.outbox.claim(head);
          // gone, or collapsed to the tail since it was read: re-read the head
          if (!message) break;
          if (!(await this.deliver(message, counts))) return;
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

  /** One delivery attempt; resolves to whether the queue goes on (false: the message waits for its retry). */
  private async deliver(message: OutboxMessage, counts: OutboxCounts): Promise<boolean> {
    const { partnerId } = message;
    try {
      await this.send(partnerId, message.request);
    } catch (error) {
      const failure = describeFailure(error);
      if (!isRetryable(error)) {
        const answer = answerOf(error);
        if (message.essential) {
          await this.outbox.deadLetter(message, failure, answer);
          this.log.warn({ partner: partnerId, message: message.label, id: message.id, error: failure }, "push rejected by partner; dead-lettered");
        } else {
          await this.outbox.reject(message, failure, answer);
          counts.rejected++;
          this.log.warn({ partner: partnerId, message: message.label, error: failure }, "push rejected by partner; dropped");
        }
        await this.events.rejected?.(message, error);
        return true;
      }
      const policy = this.policyOf(partnerId);
      const retryAt = Date.now() + retryDelay(policy, message.attempts);
      const failed = await this.outbox.failed(message, failure, retryAt);
      this.log.info({ partner: partnerId, message: message.label, attempts: failed?.attempts, error: failure }, "delivery failed; will retry");
      if (failed?.firstFailureAt !== undefined && Date.now() - failed.firstFailureAt > policy.backlogWindowMs)
        counts.dropped += await this.dropBacklog(partnerId);
      return false;
    }
    await this.outbox.remove(message);
    counts.delivered++;
    await this.events.delivered?.(message);
    return true;
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
