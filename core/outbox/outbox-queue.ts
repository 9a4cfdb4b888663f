import type { StoreGuard } from "../contract/store";
import type { EnqueueRequest, OutboxMessage } from "./outbox-message";

/**
 * The two steps of the outbox that must be atomic across instances: placing messages in their partners'
 * queues (positions, collapse slots, queue entries, the partner's entry) and claiming a message for delivery.
 * One interface, two implementations, each one algorithm, chosen once per store by what it can do:
 *
 * - core/outbox/store-queue.ts, on the Store's own methods (a batch, compare-and-set updates): SQLite, where a
 *   batch is one transaction, and Redis Cluster, whose collections sit in different slots;
 * - core/outbox/redis/redis-queue.ts, one Lua script per step on a single Redis (the Store's `scriptOnOneRedis`
 *   capability): every write of an enqueue in one atomic round trip.
 *
 * The two are held to the same behaviour by test/core/outbox.test.ts, run on both stores.
 */
export interface OutboxQueue {
  /**
   * Queues messages of one moment, taking their positions in one step, only while `guard`'s entry holds its
   * value (checked in the same step); undefined, and nothing queued, when it does not. Resolves to the ids.
   */
  enqueueAll(messages: readonly EnqueueRequest[], guard: StoreGuard | undefined): Promise<string[] | undefined>;
  /**
   * Marks a message with a collapse key as being delivered and returns its current content (a collapse may
   * have changed it); undefined when it is gone or was moved to the tail since it was read.
   */
  claim(message: OutboxMessage): Promise<OutboxMessage | undefined>;
}
