import type { OneRedisScript, Store, StoredPage, StoreGuard } from "../contract/store";
import type { PartnerAnswer } from "./partner-answer";
import type { OutboxQueue } from "./outbox-queue";
import { StoreQueue } from "./store-queue";
import { RedisQueue } from "./redis/redis-queue";
import {
  COUNTS,
  PARTNERS,
  REJECTIONS,
  deadLettersOf,
  queueOf,
  sentOf,
  type DeadLetter,
  type EnqueueRequest,
  type OutboxCounts,
  type OutboxMessage,
  type Rejection,
  type Requeued,
} from "./outbox-message";

const hasOneRedisScript = (store: Store): store is Store & { readonly scriptOnOneRedis: OneRedisScript } => store.scriptOnOneRedis !== undefined;

const NO_COUNTS: OutboxCounts = { delivered: 0, rejected: 0, dropped: 0 };

/**
 * A durable FIFO of outbound messages per partner, in the gateway's store,
 * so pushes and callbacks survive restarts and are shared by instances on
 * one Redis. Delivery is OutboxWorker's.
 */
export class Outbox {
  private readonly listeners: ((partnerIds: ReadonlySet<string>) => void)[] = [];
  /** its atomic steps, by what the store can do (core/outbox/outbox-queue.ts) */
  private readonly queue: OutboxQueue;

  constructor(private readonly store: Store) {
    this.queue = hasOneRedisScript(store) ? new RedisQueue(store, store.sharedReads?.holder ?? "") : new StoreQueue(store);
  }

  /** Called after every enqueue with the partners it queued for, so a worker can deliver at once instead of at its next poll. */
  onEnqueue(listener: (partnerIds: ReadonlySet<string>) => void): void {
    this.listeners.push(listener);
  }

  async enqueue(message: EnqueueRequest): Promise<string> {
    return (await this.enqueueAll([message]))[0];
  }

  /** Queues messages of one moment (a change fanned out to its partners), taking their positions in one step. */
  async enqueueAll(messages: readonly EnqueueRequest[]): Promise<string[]> {
    return (await this.enqueueAllIf(undefined, messages))!;
  }

  /**
   * `enqueueAll`, only while the guard's entry holds its value, checked in the same step as the writes (one
   * script on one Redis, the batch's transaction on SQLite: core/outbox/outbox-queue.ts): undefined, and nothing queued, when it does not.
   * Push fan-out decides its partners under the registration generation it read last and has the enqueue
   * check that generation, instead of reading it before every change (PushFanOut.onChange).
   */
  async enqueueAllIf(guard: StoreGuard | undefined, messages: readonly EnqueueRequest[]): Promise<string[] | undefined> {
    if (messages.length === 0) return [];
    const ids = await this.queue.enqueueAll(messages, guard);
    if (ids) this.enqueued(messages);
    return ids;
  }

  private enqueued(messages: readonly EnqueueRequest[]): void {
    const partnerIds = new Set(messages.map((m) => m.partnerId));
    for (const listener of this.listeners) listener(partnerIds);
  }

  async partners(): Promise<string[]> {
    const page = await this.store.range<{ partnerId: string }>(PARTNERS, { offset: 0, limit: 100_000 });
    return page.items.map((p) => p.partnerId);
  }

  async get(partnerId: string, id: string): Promise<OutboxMessage | undefined> {
    return this.store.get<OutboxMessage>(queueOf(partnerId), id);
  }

  async head(partnerId: string): Promise<OutboxMessage | undefined> {
    return (await this.pending(partnerId, 1)).items[0];
  }

  /** The first `limit` messages of the partner's queue past position `seq`, oldest first. */
  async pendingAfter(partnerId: string, seq: number, limit: number): Promise<OutboxMessage[]> {
    return (await this.store.range<OutboxMessage>(queueOf(partnerId), { from: seq + 1, offset: 0, limit })).items;
  }

  /** The first `limit` messages of the partner's queue, oldest first, and the queue's length. */
  async pending(partnerId: string, limit = 100_000): Promise<{ items: OutboxMessage[]; total: number }> {
    return this.store.range<OutboxMessage>(queueOf(partnerId), { offset: 0, limit });
  }

  /**
   * Marks the message as being delivered and returns its current content (a
   * collapse may have changed it); undefined when it is gone or was moved to
   * the tail since it was read, so it is not delivered ahead of its turn.
   * A message without a collapse key never changes: nothing to mark.
   */
  async claim(message: OutboxMessage): Promise<OutboxMessage | undefined> {
    if (!message.collapseKey) return message;
    return this.queue.claim(message);
  }

  /**
   * Takes the message out of its queue (delivered, dead-lettered or dropped). Safe to repeat until the store
   * confirms it (OutboxWorker does after a delivery, issue #8): a message with a collapse key shares its id
   * (its slot) with later messages, so the slot is emptied only while it holds this message (same seq); a
   * claimed message (inFlight) is not collapsed into, so the slot still holds it when it is deleted: the
   * worker's first removal of a message it claimed passes `again` false and spares the look at the slot.
   */
  async remove(message: OutboxMessage, again = true): Promise<void> {
    if (again && message.collapseKey && (await this.get(message.partnerId, message.id))?.seq !== message.seq) return;
    await this.store.delete(queueOf(message.partnerId), message.id);
  }

  /** Whether a message enqueued under a stable id (`once`) was delivered or refused already. */
  async wasSent(message: OutboxMessage): Promise<boolean> {
    return (await this.store.get(sentOf(message.partnerId), message.id)) !== undefined;
  }

  /**
   * Marks a message enqueued under a stable id as delivered (or refused), before it leaves the queue: a copy
   * enqueued again later (a retry whose first write did land, issue #8) is then dropped unsent. Repeatable.
   */
  async markSent(message: OutboxMessage): Promise<void> {
    const at = Date.now();
    await this.store.put(sentOf(message.partnerId), message.id, { id: message.id, at }, at);
  }

  /** Forgets a partner's markers of messages sent before `before`; resolves to how many. */
  async forgetSent(partnerId: string, before: number): Promise<number> {
    const { items } = await this.store.range<{ id: string }>(sentOf(partnerId), { to: before, offset: 0, limit: 1000 });
    for (const marker of items) await this.store.delete(sentOf(partnerId), marker.id);
    return items.length;
  }

  async failed(message: OutboxMessage, error: string, retryAt: number): Promise<OutboxMessage | undefined> {
    return this.store.update<OutboxMessage>(queueOf(message.partnerId), message.id, (current) =>
      current
        ? {
            value: {
              ...current,
              inFlight: false,
              attempts: current.attempts + 1,
              nextAttemptAt: retryAt,
              firstFailureAt: current.firstFailureAt ?? Date.now(),
              lastError: error,
            },
          }
        : undefined,
    );
  }

  /**
   * Moves a rejected message from the queue to the partner's dead letters,
   * where it keeps its queue position as its order, and keeps its answer as
   * the partner's last rejection. It is written there before it leaves the
   * queue: a crash in between leaves it in both (sent again), never in neither.
   * Repeatable: a repeat writes the same dead letter.
   */
  async deadLetter(message: OutboxMessage, error: string, answer: PartnerAnswer): Promise<void> {
    const now = Date.now();
    const id = message.collapseKey ? `${message.id}@${message.seq}` : message.id;
    const letter: DeadLetter = {
      ...message,
      id,
      inFlight: undefined,
      attempts: message.attempts + 1,
      firstFailureAt: message.firstFailureAt ?? now,
      lastError: error,
      answer,
      deadLetteredAt: now,
    };
    await this.store.put(deadLettersOf(message.partnerId), id, letter, message.seq);
    await this.store.put<Rejection>(REJECTIONS, message.partnerId, { label: message.label, answer, lastError: error, at: now });
    await this.remove(message);
  }

  /** A partner's dead letters, oldest first, and how many it has. */
  async deadLetters(partnerId: string, offset = 0, limit = 100_000): Promise<StoredPage<DeadLetter>> {
    return this.store.range<DeadLetter>(deadLettersOf(partnerId), { offset, limit });
  }

  /**
   * Moves a partner's dead letters (all, or the one with `id`) back to the
   * tail of its queue, in their order, as fresh messages. Each is queued
   * before it leaves the dead letters: a crash in between sends it twice
   * rather than never. Empty when there is no such dead letter. One that
   * carries a canonical object is rendered again when it is delivered: a
   * partner whose version or config changed meanwhile gets what they say now.
   */
  async retryDeadLetters(partnerId: string, id?: string): Promise<Requeued[]> {
    const letters =
      id === undefined
        ? (await this.deadLetters(partnerId)).items
        : [await this.store.get<DeadLetter>(deadLettersOf(partnerId), id)].filter((l): l is DeadLetter => l !== undefined);
    const ids = await this.enqueueAll(
      letters.map((l) => ({
        partnerId,
        request: l.request,
        label: l.label,
        collapseKey: l.collapseKey,
        orderKey: l.orderKey,
        essential: l.essential,
        tag: l.tag,
      })),
    );
    for (const letter of letters) await this.store.delete(deadLettersOf(partnerId), letter.id);
    return letters.map((l, i) => ({ deadLetterId: l.id, id: ids[i], label: l.label }));
  }

  async lastRejection(partnerId: string): Promise<Rejection | undefined> {
    return this.store.get<Rejection>(REJECTIONS, partnerId);
  }

  /**
   * Forgets a partner with an empty queue, so workers stop looking at it. An
   * enqueue racing with this writes its message before the partner entry, so
   * the second look below sees it and puts the entry back.
   */
  async retire(partnerId: string): Promise<void> {
    if (await this.head(partnerId)) return;
    await this.store.delete(PARTNERS, partnerId);
    if (await this.head(partnerId)) await this.store.put(PARTNERS, partnerId, { partnerId });
  }

  async counts(partnerId: string): Promise<OutboxCounts> {
    return (await this.store.get<OutboxCounts>(COUNTS, partnerId)) ?? NO_COUNTS;
  }

  /** Adds to a partner's counts; workers call it once per pass, not per message. */
  async count(partnerId: string, delta: Partial<OutboxCounts>): Promise<void> {
    if (!Object.values(delta).some((n) => n)) return;
    await this.store.update<OutboxCounts>(COUNTS, partnerId, (current) => {
      const base = current ?? NO_COUNTS;
      return {
        value: {
          delivered: base.delivered + (delta.delivered ?? 0),
          rejected: base.rejected + (delta.rejected ?? 0),
          dropped: base.dropped + (delta.dropped ?? 0),
        },
      };
    });
  }


}
