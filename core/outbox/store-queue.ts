import { randomUUID } from "node:crypto";
import type { Store, StoreGuard } from "../contract/store";
import type { OutboxQueue } from "./outbox-queue";
import { META, PARTNERS, queueOf, slotsOf, withFields, type EnqueueRequest, type OutboxMessage } from "./outbox-message";

/**
 * The outbox queue on the Store's own methods (core/outbox/outbox-queue.ts): SQLite, where the batch of an
 * enqueue is one transaction, and Redis Cluster, where each write is atomic by itself and a collapse is a
 * compare-and-set update.
 */
export class StoreQueue implements OutboxQueue {
  constructor(private readonly store: Store) {}

  async enqueueAll(messages: readonly EnqueueRequest[], guard: StoreGuard | undefined): Promise<string[] | undefined> {
    // one batch: on SQLite the positions and every partner's message are one commit instead of one each
    return this.store.batch(async () => {
      if (guard && (await this.store.get<string>(guard.collection, guard.key)) !== guard.value) return undefined;
      const first = await this.reserveSeqs(messages.length);
      // one partner's messages one after another (two may share a collapse slot), partners' side by side: on
      // Redis their writes share the connection's pipeline instead of a round trip each
      const placed: string[] = new Array(messages.length);
      const byPartner = new Map<string, number[]>();
      messages.forEach((message, i) => byPartner.set(message.partnerId, [...(byPartner.get(message.partnerId) ?? []), i]));
      await Promise.all(
        [...byPartner.values()].map(async (indexes) => {
          for (const i of indexes) placed[i] = await this.place(messages[i], first + i);
        }),
      );
      return placed;
    });
  }

  async claim(message: OutboxMessage): Promise<OutboxMessage | undefined> {
    let found = false;
    const claimed = await this.store.update<OutboxMessage>(queueOf(message.partnerId), message.id, (current) => {
      found = current !== undefined && current.seq === message.seq;
      return found ? { value: withFields(current!, { inFlight: true }) } : undefined;
    });
    return found ? claimed : undefined;
  }

  private async place(message: EnqueueRequest, seq: number): Promise<string> {
    const slot = message.collapseKey ? await this.collapse(message, seq) : undefined;
    const id = slot ?? message.id ?? randomUUID();
    if (!slot && message.id !== undefined) await this.store.putIfAbsent(queueOf(message.partnerId), id, this.fresh(message, id, seq), seq);
    else if (!slot) await this.store.put(queueOf(message.partnerId), id, this.fresh(message, id, seq), seq);
    // after the message: a worker retiring the partner meanwhile sees the message on its second look
    await this.store.putIfAbsent(PARTNERS, message.partnerId, { partnerId: message.partnerId });
    return id;
  }

  private fresh(message: EnqueueRequest, id: string, seq: number): OutboxMessage {
    return withFields(message, { id, seq, once: message.id !== undefined ? true : undefined, attempts: 0, nextAttemptAt: 0, enqueuedAt: Date.now() });
  }

  /**
   * A message with a collapse key lives in one of two slots named after the
   * key, so the waiting one is found without an index. It replaces a
   * waiting message there, moved to the tail: any message queued between
   * them (a PUT of the whole Location, say) then still comes before the
   * newest state. A message in flight or already tried (only ever a queue's
   * head, so one slot at most) stays as it is, keeping its place and its
   * backoff; the other slot takes the newer one. Resolves to the slot used.
   */
  private async collapse(message: EnqueueRequest, seq: number): Promise<string | undefined> {
    for (const id of slotsOf(message.collapseKey!)) {
      let placed = false;
      await this.store.update<OutboxMessage>(queueOf(message.partnerId), id, (current) => {
        placed = !current || (!current.inFlight && current.attempts === 0);
        if (!placed) return undefined;
        if (!current) return { value: this.fresh(message, id, seq), sortKey: seq };
        // another instance may have collapsed a newer change in already: this one is then superseded as it is
        if (current.seq > seq) return undefined;
        return { value: withFields(current, { seq, request: message.request, label: message.label, enqueuedAt: Date.now() }), sortKey: seq };
      });
      if (placed) return id;
    }
    return undefined;
  }

  /** The first of `count` consecutive queue positions, after every position taken before. */
  private async reserveSeqs(count: number): Promise<number> {
    const counter = await this.store.update<{ seq: number }>(META, "seq", (current) => ({ value: { seq: (current?.seq ?? 0) + count } }));
    return counter!.seq - count + 1;
  }
}
