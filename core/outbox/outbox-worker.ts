import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Store } from "../contract/store";
import type { BackgroundService } from "../contract/background";
import { storeUnavailableIn } from "../contract/store-unavailable";
import { SENT_RETENTION_MS, related, sentKey, tagOf, type OutboxCounts, type OutboxMessage } from "./outbox-message";
import { type Outbox } from "./outbox";
import { type RetryPolicy } from "../contract/partner-profile";
import { attemptDelivery, type AttemptDeps, type OutboundSender, type OutboxEvents, type Sent } from "./delivery-attempt";
import { DEFAULT_PUSH_CONCURRENCY } from "../partners/partner-settings";

export interface OutboxWorkerOptions {
  /** fallback poll, for messages other instances enqueued (this instance's enqueues wake it at once) */
  pollMs?: number;
  /** partner queues delivered at the same time */
  parallelQueues?: number;
  /** messages of one partner delivered at the same time (`partners[].push.concurrency`); default DEFAULT_PUSH_CONCURRENCY */
  concurrencyOf?: (partnerId: string) => number;
}

const LOCK_TTL_MS = 30_000;
/** messages read from a queue's head at once */
const BATCH = 100;

/** pause between attempts to record what became of a sent message while the store is failing (doubling up to the max) */
const ACK_RETRY_MIN_MS = 50;
const ACK_RETRY_MAX_MS = 1000;
/** how often a lane forgets its partner's old markers of messages sent under a stable id (Outbox.markSent) */
const FORGET_SENT_EVERY_MS = 60 * 60_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Delivers the outbox: partners' queues side by side, each on a lane of its
 * own under a store lock, so several instances never deliver the same queue
 * at once. Within a queue, messages for different objects go side by side
 * (at most the partner's concurrency) and those for one object in queue
 * order (deliverQueue); a failing head holds its queue back (the partner is
 * usually down as a whole) with exponential backoff. A rejection (isRetryable) never holds the queue: the
 * message goes to the partner's dead letters with the partner's answer, whatever its module and whether or
 * not it is essential, counted and logged. A later message for the same object is not held back by it nor
 * merged with it (a dead letter has left the queue and its collapse slot): both are delivered as queued.
 */
export class OutboxWorker implements BackgroundService {
  readonly name = "outbox";
  private readonly owner = randomUUID();
  private readonly pollMs: number;
  private readonly parallelQueues: number;
  private readonly concurrencyOf: (partnerId: string) => number;
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
  /** enqueues in this process per partner, counted: a lane reads its queue again only when it may hold more (deliverQueue) */
  private readonly enqueues = new Map<string, number>();
  /** what sending one message uses (core/outbox/delivery-attempt.ts) */
  private readonly attempts: AttemptDeps;
  /** when this instance last forgot each partner's old sent markers */
  private readonly forgotSentAt = new Map<string, number>();

  constructor(
    private readonly outbox: Outbox,
    private readonly store: Store,
    send: OutboundSender,
    policyOf: (partnerId: string) => RetryPolicy,
    private readonly log: Logger,
    private readonly events: OutboxEvents = {},
    options: OutboxWorkerOptions = {},
  ) {
    this.attempts = { outbox, send, policyOf, log, events };
    this.pollMs = options.pollMs ?? 500;
    this.parallelQueues = options.parallelQueues ?? 16;
    this.concurrencyOf = options.concurrencyOf ?? (() => DEFAULT_PUSH_CONCURRENCY);
    // A partner whose queue a lane of this instance is delivering needs no scan: the lane reads its queue
    // again before it ends, and a lane that ends looks for more (scan, via kick) anyway.
    outbox.onEnqueue((partnerIds) => {
      let kick = false;
      for (const id of partnerIds) {
        this.enqueues.set(id, (this.enqueues.get(id) ?? 0) + 1);
        kick ||= !this.lanes.has(id);
      }
      if (kick) this.kick();
    });
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

  /**
   * Delivers the queue until it is empty or its head must wait for a retry, several messages at a time: the
   * protocol needs order per object, not across objects. Messages start in queue order. One with an order key
   * (push-fan-out: module, owner and object path) starts once no delivery under way, and no earlier message
   * left waiting in this read, is for its object, a parent or a part of it (`related`), so it never
   * overtakes one for the same object. One without an order key (command results, response URLs, the resync
   * probe), or one already tried, waits for every delivery under way and holds back all after it. At most
   * the partner's concurrency at once, from one at the start of a pass and one more after each delivery (a
   * partner that is down gets one attempt, not a burst). A message that must be retried stops the pass:
   * nothing more is started, those under way end (each recorded until the store confirms it, `confirm`),
   * and its backoff holds the queue back. The lock is released only once every delivery has ended.
   */
  private async deliverQueue(partnerId: string, lock: string): Promise<void> {
    const counts: OutboxCounts = { delivered: 0, rejected: 0, dropped: 0 };
    const limit = Math.max(1, this.concurrencyOf(partnerId));
    let renewedAt = Date.now();
    let renewing: Promise<void> | undefined;
    const keepLock = async () => {
      if (renewing) return renewing;
      if (Date.now() - renewedAt <= LOCK_TTL_MS / 3) return;
      renewing = this.store.renewLock(lock, this.owner, LOCK_TTL_MS).then(
        () => {
          renewedAt = Date.now();
          renewing = undefined;
        },
        (error) => {
          renewing = undefined;
          throw error;
        },
      );
      return renewing;
    };
    /** deliveries under way by tag (tagOf), with their order keys */
    const active = new Map<string, Promise<void>>();
    const keysOf = new Map<string, string>();
    /** messages of this pass started already: read again while under way, they are not started twice */
    const started = new Set<string>();
    let window = 1;
    let halted = false;
    let backlogExpired = false;
    /** a delivery that failed in the store (not at the partner): the pass ends with it once the others have ended */
    let failure: { error: unknown } | undefined;
    const settle = async () => {
      while (active.size > 0) await Promise.all(active.values());
    };
    const start = (head: OutboxMessage, tag: string): Promise<void> => {
      started.add(tag);
      const delivery = (async () => {
        const message = await this.outbox.claim(head);
        // gone, or collapsed to the tail since it was read: it comes again in a later read, at its new place
        if (!message) return;
        const outcome = await this.deliver(message, counts, keepLock);
        if (outcome === "sent") window = Math.min(limit, window + 1);
        else {
          halted = true;
          if (outcome === "backlog expired") backlogExpired = true;
        }
        await keepLock();
      })().then(
        () => {
          active.delete(tag);
          keysOf.delete(tag);
        },
        (error) => {
          active.delete(tag);
          keysOf.delete(tag);
          halted = true;
          failure ??= { error };
        },
      );
      active.set(tag, delivery);
      if (head.orderKey !== undefined) keysOf.set(tag, head.orderKey);
      return delivery;
    };
    /**
     * the last read of the queue's head, and what made it: whether it held the whole queue, the enqueues of
     * this process it saw, and the last position it reached (enough to tell whether it can be used again)
     */
    let read: { items: OutboxMessage[]; whole: boolean; enqueues: number; lastSeq: number } | undefined;
    try {
      while (!halted) {
        // Read again unless, with deliveries still under way, the last read held the whole queue and this
        // process queued nothing for the partner since: its messages not started yet are all there is then
        // (another instance's enqueue is read once those under way have ended, below, or by the next lane).
        // When this process did queue more, only the queue's tail past the last read is read: a message is
        // queued at a position past every one before it (Outbox.enqueueAll), a collapse moves one there too
        // (its old place, read before, is found gone by `claim`), and nothing moves back.
        const enqueues = this.enqueues.get(partnerId) ?? 0;
        if (!read || active.size === 0 || !read.whole) {
          const limit = BATCH + active.size;
          const { items } = await this.outbox.pending(partnerId, limit);
          read = { items, whole: items.length < limit, enqueues, lastSeq: items.at(-1)?.seq ?? 0 };
        } else if (read.enqueues !== enqueues) {
          const tail = await this.outbox.pendingAfter(partnerId, read.lastSeq, BATCH);
          const waiting = read.items.filter((m) => !started.has(tagOf(m)));
          read = { items: [...waiting, ...tail], whole: tail.length < BATCH, enqueues, lastSeq: tail.at(-1)?.seq ?? read.lastSeq };
        }
        const { items } = read;
        /** order keys of messages of this read left waiting for an earlier one of their object */
        const waiting: string[] = [];
        let fresh = 0;
        for (const head of items) {
          const tag = tagOf(head);
          if (started.has(tag)) continue;
          fresh++;
          if (halted || !this.started || head.nextAttemptAt > Date.now()) {
            halted = true;
            break;
          }
          if (head.orderKey === undefined || head.attempts > 0) {
            // alone: after everything before it, before anything after it
            if (waiting.length > 0) break;
            await settle();
            if (halted) break;
            await start(head, tag);
            continue;
          }
          // room first, then the look at what is under way (only this loop starts deliveries): with a
          // concurrency of 1 the queue is thus delivered strictly in order
          while (active.size >= window && !halted) await Promise.race(active.values());
          if (halted) break;
          const key = head.orderKey;
          if (waiting.some((k) => related(k, key)) || [...keysOf.values()].some((k) => related(k, key))) {
            waiting.push(key);
            continue;
          }
          void start(head, tag);
        }
        if (halted || !this.started) break;
        if (fresh === 0 && active.size === 0) break;
        // room, or the end of what waits for an earlier message: read the queue again once a delivery ended
        if (active.size > 0 && (fresh === 0 || waiting.length > 0 || active.size >= window)) await Promise.race(active.values());
        if (active.size === 0) started.clear();
      }
      await settle();
      if (failure) throw failure.error;
      if (backlogExpired) counts.dropped += await this.dropBacklog(partnerId);
    } finally {
      await settle();
      await this.outbox.count(partnerId, counts);
    }
  }

  /** One delivery attempt and what came of it; "retry": the message waits for its backoff, holding the queue back. */
  private async deliver(message: OutboxMessage, counts: OutboxCounts, keepLock: () => Promise<void>): Promise<"sent" | "retry" | "backlog expired"> {
    // sent by this instance already, and only what became of it is not recorded yet: not sent again
    const unconfirmed = this.sentUnconfirmed.get(sentKey(message));
    const sent = unconfirmed ?? (await attemptDelivery(this.attempts, message));
    if (!("record" in sent)) return sent.retry;
    await this.confirm(message, sent, keepLock, unconfirmed !== undefined);
    await sent.recorded(counts);
    return "sent";
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
  private async confirm(message: OutboxMessage, sent: Sent, keepLock: () => Promise<void>, again: boolean): Promise<void> {
    const key = sentKey(message);
    this.sentUnconfirmed.set(key, sent);
    for (let delay = ACK_RETRY_MIN_MS, attempt = 1; ; delay = Math.min(delay * 2, ACK_RETRY_MAX_MS), attempt++) {
      try {
        await sent.record(again || attempt > 1);
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
