import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../store/port";
import type { BackgroundService } from "../background";
import { storeUnavailableIn } from "../store/store-unavailable";
import { SENT_RETENTION_MS, type Outbox, type OutboxCounts, type OutboxMessage, type OutboundRequest } from "./outbox";
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
/** pause between attempts to record what became of a sent message while the store is failing (doubling up to the max) */
const ACK_RETRY_MIN_MS = 50;
const ACK_RETRY_MAX_MS = 1000;
/** how often a lane forgets its partner's old markers of messages sent under a stable id (Outbox.markSent) */
const FORGET_SENT_EVERY_MS = 60 * 60_000;

/** what is to be recorded in the store of a message that was sent (a delivery, or a refusal), and what follows once it is */
interface Sent {
  record(): Promise<void>;
  recorded(counts: OutboxCounts): Promise<void>;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** a message as it was sent: a collapse key's slot takes later messages under the same id, with other positions */
const sentKey = (message: OutboxMessage) => `${message.partnerId}\n${message.id}\n${message.seq}`;

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
  /**
   * Messages this instance sent whose removal from the queue it could not confirm (the worker stopped while
   * the store was failing): should it find one again, it removes it without sending it a second time.
   */
  private readonly sentUnconfirmed = new Map<string, Sent>();
  /** when this instance last forgot each partner's old sent markers */
  private readonly forgotSentAt = new Map<string, number>();

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
      if (Date.now() - (this.forgotSentAt.get(partnerId) ?? 0) > FORGET_SENT_EVERY_MS) {
        await this.outbox.forgetSent(partnerId, Date.now() - SENT_RETENTION_MS);
        this.forgotSentAt.set(partnerId, Date.now());
      }
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
    const keepLock = async () => {
      if (Date.now() - renewedAt <= LOCK_TTL_MS / 3) return;
      await this.store.renewLock(lock, this.owner, LOCK_TTL_MS);
      renewedAt = Date.now();
    };
    try {
      for (;;) {
        const { items } = await this.outbox.pending(partnerId, BATCH);
        if (items.length === 0) return;
        for (const head of items) {
          if (!this.started || head.nextAttemptAt > Date.now()) return;
          const message = await this.outbox.claim(head);
          // gone, or collapsed to the tail since it was read: re-read the head
          if (!message) break;
          if (!(await this.deliver(message, counts, keepLock))) return;
          await keepLock();
        }
      }
    } finally {
      await this.outbox.count(partnerId, counts);
    }
  }

  /** One delivery attempt; resolves to whether the queue goes on (false: the message waits for its retry). */
  private async deliver(message: OutboxMessage, counts: OutboxCounts, keepLock: () => Promise<void>): Promise<boolean> {
    // sent by this instance already, and only what became of it is not recorded yet: not sent again
    const sent = this.sentUnconfirmed.get(sentKey(message)) ?? (await this.attempt(message, counts));
    if (!sent) return false;
    await this.confirm(message, sent, keepLock);
    await sent.recorded(counts);
    return true;
  }

  /** Sends the message; resolves to what is to be recorded of it, or to undefined when it failed and waits for its retry. */
  private async attempt(message: OutboxMessage, counts: OutboxCounts): Promise<Sent | undefined> {
    const { partnerId } = message;
    if (message.once && (await this.outbox.wasSent(message))) {
      // enqueued again after it was delivered (a retried enqueue whose first write had landed): dropped unsent
      return {
        record: () => this.outbox.remove(message),
        recorded: async () => this.log.info({ partner: partnerId, message: message.label, id: message.id }, "message enqueued again after its delivery; dropped unsent"),
      };
    }
    // a message enqueued under a stable id is marked sent before it leaves the queue (Outbox.markSent)
    const record = (leave: () => Promise<void>) =>
      message.once
        ? async () => {
            await this.outbox.markSent(message);
            await leave();
          }
        : leave;
    try {
      await this.send(partnerId, message.request);
    } catch (error) {
      const failure = describeFailure(error);
      if (!isRetryable(error)) {
        const answer = answerOf(error);
        const essential = message.essential === true;
        return {
          record: record(() => (essential ? this.outbox.deadLetter(message, failure, answer) : this.outbox.reject(message, failure, answer))),
          recorded: async (passCounts) => {
            if (essential) {
              this.log.warn({ partner: partnerId, message: message.label, id: message.id, error: failure }, "push rejected by partner; dead-lettered");
            } else {
              passCounts.rejected++;
              this.log.warn({ partner: partnerId, message: message.label, error: failure }, "push rejected by partner; dropped");
            }
            await this.events.rejected?.(message, error);
          },
        };
      }
      const policy = this.policyOf(partnerId);
      const retryAt = Date.now() + retryDelay(policy, message.attempts);
      const failed = await this.outbox.failed(message, failure, retryAt);
      this.log.info({ partner: partnerId, message: message.label, attempts: failed?.attempts, error: failure }, "delivery failed; will retry");
      if (failed?.firstFailureAt !== undefined && Date.now() - failed.firstFailureAt > policy.backlogWindowMs)
        counts.dropped += await this.dropBacklog(partnerId);
      return undefined;
    }
    return {
      record: record(() => this.outbox.remove(message)),
      recorded: async (passCounts) => {
        passCounts.delivered++;
        await this.events.delivered?.(message);
      },
    };
  }

  /**
   * Records what became of a sent message (removed; dead-lettered or dropped when refused), retrying while
   * the store is unavailable, under the queue's lock, until the store confirms it. Issue #8: commands and
   * pushes are delivered once across a Redis Cluster failover. There a write fails when its master dies, or
   * when no replica acknowledged it in time (RedisStore: WAIT 1); had the lane given up on the removal of a
   * delivered message, it would have released the lock, and the message, still at the head of the queue on
   * the promoted replica, would have been sent again by the next lane. Each `record` may be repeated
   * (Outbox.remove, deadLetter, reject).
   */
  private async confirm(message: OutboxMessage, sent: Sent, keepLock: () => Promise<void>): Promise<void> {
    const key = sentKey(message);
    this.sentUnconfirmed.set(key, sent);
    for (let delay = ACK_RETRY_MIN_MS, attempt = 1; ; delay = Math.min(delay * 2, ACK_RETRY_MAX_MS), attempt++) {
      try {
        await sent.record();
        this.sentUnconfirmed.delete(key);
        return;
      } catch (error) {
        // a stopping worker gives up: this process remembers it in sentUnconfirmed, in case it delivers the queue again
        if (!storeUnavailableIn(error) || !this.started) throw error;
        if (attempt === 1) {
          this.log.warn({ partner: message.partnerId, message: message.label, id: message.id }, "message sent; recording it in the store is retried until the store confirms it");
        }
      }
      await pause(delay);
      // renewed as long as the store lets it: the lock's key may be on another, healthy, master
      await keepLock().catch((error) => {
        if (!storeUnavailableIn(error)) throw error;
      });
    }
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
