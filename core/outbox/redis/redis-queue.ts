import { randomUUID } from "node:crypto";
import type { OneRedisScript, Store, StoreGuard } from "../../contract/store";
import type { OutboxQueue } from "../outbox-queue";
import { META, PARTNERS, queueOf, slotsOf, withFields, type EnqueueRequest, type OutboxMessage } from "../outbox-message";
import { GENERATION_LEASES } from "../../store/shared-reads";
import { CLAIM_LUA, ENQUEUE_LUA } from "./scripts";

/**
 * The outbox queue on a single Redis (core/outbox/outbox-queue.ts): each step is one Lua script
 * (./scripts.ts) run through the Store's `scriptOnOneRedis` capability, atomic and one round trip.
 */
export class RedisQueue implements OutboxQueue {
  /** `holder`: this instance's name in generation leases, whose own leases an enqueue does not wait for */
  constructor(
    private readonly store: Store & { readonly scriptOnOneRedis: OneRedisScript },
    private readonly holder: string,
  ) {}

  /**
   * Every write of an enqueue, the positions, the collapse slots, the queue entries and the `outbox:partners`
   * entries, in one script call (ENQUEUE_LUA: a waiting message with the same collapse key is replaced and moved
   * to the tail, one in flight or already tried is left as it is).
   */
  async enqueueAll(messages: readonly EnqueueRequest[], guard: StoreGuard | undefined): Promise<string[] | undefined> {
    const queues = [...new Set(messages.map((m) => m.partnerId))];
    const collections = [META, PARTNERS, GENERATION_LEASES, ...queues.map(queueOf), ...(guard ? [guard.collection] : [])];
    const now = Date.now();
    // the guard's value as the store encodes it (JSON), compared with the stored text
    // and whose leases are not waited for: this instance's (SharedReads drops them as its writes complete)
    const args: (string | number)[] = [now, messages.length, guard?.key ?? "", guard ? JSON.stringify(guard.value) : "", this.holder];
    for (const message of messages) {
      const id = message.id;
      const [slot0, slot1] = message.collapseKey ? slotsOf(message.collapseKey) : ["", ""];
      // the message as `fresh` writes it, but for id, seq and nextAttemptAt, which the script appends (an undefined field is not written)
      const fresh = withFields(message, { id: undefined, once: id !== undefined ? true : undefined, attempts: 0, nextAttemptAt: undefined, enqueuedAt: now });
      args.push(
        7 + 2 * queues.indexOf(message.partnerId),
        message.partnerId,
        slot0,
        slot1,
        id ?? randomUUID(),
        id !== undefined ? "once" : "put",
        message.label,
        JSON.stringify(message.request),
        JSON.stringify(fresh),
        JSON.stringify({ partnerId: message.partnerId }),
      );
    }
    return (await this.store.scriptOnOneRedis<string[] | null>("outboxEnqueue", ENQUEUE_LUA, collections, args)) ?? undefined;
  }

  async claim(message: OutboxMessage): Promise<OutboxMessage | undefined> {
    const json = await this.store.scriptOnOneRedis<string | null>("outboxClaim", CLAIM_LUA, [queueOf(message.partnerId)], [message.id, message.seq]);
    return json === null ? undefined : (JSON.parse(json) as OutboxMessage);
  }
}
