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

/**
 * The deliveries under way (tags) whose order key is `key`, a part of it or
 * a parent of it: order keys are object paths ("locations:NLGWY/LOC1/EVSE1"),
 * so a Location's PUT and its EVSE's PATCH are ordered, two EVSEs' are not.
 */
const related = (keysOf: ReadonlyMap<string, string>, key: string): string[] => {
  const tags: string[] = [];
  for (const [tag, other] of keysOf)
    if (other === key || other.startsWith(`${key}/`) || key.startsWith(`${other}/`)) tags.push(tag);
  return tags;
};
/** messages read from a queue's head at once */
const BATCH = 100;
/** deliveries to one partner under way at once */
const MAX_IN_FLIGHT = 16;

/**
 * Delivers the outbox: partners' queues side by side, each on a lane of its
 * own under a store lock, so several instances never deliver the same queue
 * at once. Within a queue, messages for different objects go side by side
 * and those for one object in queue order (deliverQueue); a failing head
 * holds its queue back (the partner is usually down as a whole) with
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

  /**
   * Delivers the queue until it is empty or its head must wait for a retry,
   * several messages at a time: order matters per object, not across
   * objects. A message with an order key (push-fan-out: the module, owner and
   * object path) starts only once every earlier message for that object has
   * ended, so it never overtakes one for the same object; a message
   * without one, or one already tried, waits for all before it and holds
   * all after it. Order keys are object paths: a message waits for those of
   * its object, of its parents and of its parts (`related`). At most MAX_IN_FLIGHT at once, starting from one per pass
   * and one more after each delivery (a partner that is down gets one
   * attempt, not a burst). A message that must be retried stops the pass:
   * nothing after it is started, those under way end, and its backoff holds
   * the queue back as before.
   */
  private async deliverQueue(partnerId: string, lock: string): Promise<void> {
    const counts: OutboxCounts = { delivered: 0, rejected: 0, dropped: 0 };
    let renewedAt = Date.now();
    /** deliveries under way, by `id@seq` (a collapse slot's id is reused, its seq is not) */
    const active = new Map<string, Promise<void>>();
    /** the order keys of the deliveries under way */
    const keysOf = new Map<string, string>();
    /** messages of this pass started already, by `id@seq`: read again while under way or just removed, they are not sent twice */
    const started = new Set<string>();
    let halted = false;
    /** a delivery that failed in the store (not the partner): the pass ends with it once the others have ended */
    let failure: { error: unknown } | undefined;
    let backlogExpired = false;
    let window = 1;
    const settle = async () => {
      await Promise.all(active.values());
    };
    try {
      for (;;) {
        const { items } = await this.outbox.pending(partnerId, BATCH + active.size);
        let fresh = 0;
        for (const head of items) {
          const tag = `${head.id}@${head.seq}`;
          if (started.has(tag)) continue;
          fresh++;
          if (halted || !this.started || head.nextAttemptAt > Date.now()) {
            halted = true;
            break;
          }
          const alone = head.orderKey === undefined || head.attempts > 0;
          if (alone) await settle();
          else {
            // every earlier message for this object, its parent or one of its parts has ended first
            for (let before = related(keysOf, head.orderKey!); before.length; before = related(keysOf, head.orderKey!)) await Promise.all(before.map((t) => active.get(t)));
            while (active.size >= window) await Promise.race(active.values());
          }
          if (halted) break;
          const message = await this.outbox.claim(head);
          // gone, or collapsed to the tail since it was read: it comes again in a later read, at its new place
          if (!message) continue;
          started.add(tag);
          const delivery = this.deliver(message, counts).then(
            (outcome) => {
              active.delete(tag);
              keysOf.delete(tag);
              if (outcome === "delivered" || outcome === "rejected") window = Math.min(MAX_IN_FLIGHT, window + 1);
              else {
                halted = true;
                if (outcome === "backlog expired") backlogExpired = true;
              }
            },
            (error) => {
              active.delete(tag);
              keysOf.delete(tag);
              halted = true;
              failure ??= { error };
            },
          );
          active.set(tag, delivery);
          if (message.orderKey !== undefined) keysOf.set(tag, message.orderKey);
          if (alone) await delivery;
          if (Date.now() - renewedAt > LOCK_TTL_MS / 3) {
            await this.store.renewLock(lock, this.owner, LOCK_TTL_MS);
            renewedAt = Date.now();
          }
        }
        if (halted || fresh === 0) {
          await settle();
          if (halted || active.size === 0) break;
        } else if (active.size >= window) await Promise.race(active.values());
        if (started.size > 10 * BATCH && active.size === 0) started.clear();
      }
      if (failure) throw failure.error;
      if (backlogExpired) counts.dropped += await this.dropBacklog(partnerId);
    } finally {
      await settle();
      await this.outbox.count(partnerId, counts);
    }
  }

  /** One delivery attempt and what came of it; "retry": the message waits for its backoff, holding the queue. */
  private async deliver(message: OutboxMessage, counts: OutboxCounts): Promise<"delivered" | "rejected" | "retry" | "backlog expired"> {
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
        return "rejected";
      }
      const policy = this.policyOf(partnerId);
      const retryAt = Date.now() + retryDelay(policy, message.attempts);
      const failed = await this.outbox.failed(message, failure, retryAt);
      this.log.info({ partner: partnerId, message: message.label, attempts: failed?.attempts, error: failure }, "delivery failed; will retry");
      // dropped once the deliveries under way have ended (deliverQueue), so none of them is counted twice
      if (failed?.firstFailureAt !== undefined && Date.now() - failed.firstFailureAt > policy.backlogWindowMs) return "backlog expired";
      return "retry";
    }
    await this.outbox.remove(message);
    counts.delivered++;
    await this.events.delivered?.(message);
    return "delivered";
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
