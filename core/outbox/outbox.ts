import { randomUUID } from "node:crypto";
import type { Store, StoredPage, StoreGuard } from "../contract/store";
import type { PartnerAnswer } from "./partner-answer";
import type { OutboundRequest } from "../client/outbound-request";
import { GENERATION_LEASES, LEASES_LUA } from "../store/shared-reads";

export interface OutboxMessage {
  id: string;
  partnerId: string;
  /** position in the partner's queue; a collapse moves the message to the tail with a new one */
  seq: number;
  /** set while a worker delivers it: a newer message then queues behind instead of collapsing into it */
  inFlight?: boolean;
  request: OutboundRequest;
  /** waiting messages with the same key are replaced by the newest (repeated EVSE status changes) */
  collapseKey?: string;
  /**
   * the object the message changes, as a path ("locations:NLGWY/LOC1/EVSE1"; push-fan-out): OutboxWorker
   * delivers messages of a partner side by side, keeping in queue order those for one object, its parents
   * or its parts. None: the message is delivered alone, after every message before it and before any after it.
   */
  orderKey?: string;
  /**
   * delivered even when the backlog of a long-unreachable partner is
   * dropped (CDRs, final sessions, command and charging-profile results);
   * a message the partner rejects is dead-lettered either way
   */
  essential?: boolean;
  /** what the message is for, to whoever listens to deliveries (e.g. the probe that ends a resync wait) */
  tag?: string;
  /** for logs, e.g. "PUT locations NL/GWY/LOC1" */
  label: string;
  /**
   * enqueued under a stable id (EnqueueRequest.id): one already queued is not queued again, and once it was
   * delivered (or refused) a marker under its id (`markSent`) makes the worker drop it, unsent, should it
   * be enqueued again
   */
  once?: boolean;
  attempts: number;
  nextAttemptAt: number;
  firstFailureAt?: number;
  lastError?: string;
  enqueuedAt: number;
}

export interface EnqueueRequest {
  /**
   * a stable id for a message that may be enqueued more than once (the outcome of an asynchronous request,
   * whose delivery is retried after a store write of unknown outcome): it is delivered once however often it
   * is enqueued within SENT_RETENTION_MS (see `once`). Not with `collapseKey`, whose messages take their
   * slot's id. Default: a random id.
   */
  id?: string;
  partnerId: string;
  request: OutboundRequest;
  label: string;
  collapseKey?: string;
  orderKey?: string;
  essential?: boolean;
  tag?: string;
}

/**
 * A message the partner rejected, kept whole with its answer until an operator re-sends it. Its id is the
 * message's, or, for a message in a collapse slot (whose id later messages take), the slot's with the
 * message's queue position (`<slot>@<seq>`): two refused versions of one object are two dead letters.
 */
export interface DeadLetter extends OutboxMessage {
  answer: PartnerAnswer;
  deadLetteredAt: number;
}

/** The last message a partner rejected (dead-lettered), with its answer. */
export interface Rejection {
  label: string;
  answer: PartnerAnswer;
  lastError: string;
  at: number;
}

/** A dead letter moved back to its partner's queue, under a new id. */
export interface Requeued {
  deadLetterId: string;
  id: string;
  label: string;
}

/** Delivery counts of one partner's queue since the store was created. */
export interface OutboxCounts {
  delivered: number;
  /** refused by the partner (2xxx, or HTTP 4xx but 401/408/429): dead-lettered, not retried */
  rejected: number;
  /** superseded updates dropped after the partner was unreachable beyond its backlog window */
  dropped: number;
}

const queueOf = (partnerId: string) => `outbox:queue:${partnerId}`;
/** the two places a message with this collapse key can be in */
const slotsOf = (collapseKey: string): string[] => [`slot0:${collapseKey}`, `slot1:${collapseKey}`];
const PARTNERS = "outbox:partners";
const META = "outbox:meta";
const COUNTS = "outbox:counts";
const deadLettersOf = (partnerId: string) => `outbox:dead:${partnerId}`;
const sentOf = (partnerId: string) => `outbox:sent:${partnerId}`;
/** how long the marker of a message sent under a stable id is kept: as long as a pending request's entry (PendingRequests) */
export const SENT_RETENTION_MS = 24 * 60 * 60_000;
const REJECTIONS = "outbox:last-rejected";

/**
 * Outbox.enqueueAll on one Redis, as one script (RedisStore.scriptOnOneRedis): KEYS are the values hash and
 * sort index of outbox:meta, outbox:partners, the generation leases (their values key: SharedReads), then
 * of each partner's queue, then (with a guard) the guard's values hash and index; ARGV[1] the time, ARGV[2]
 * the number of messages, ARGV[3] and ARGV[4] the guard's key and value ('' without one: a guard whose entry
 * does not hold that value queues nothing and returns nil), ARGV[5] this instance's lease holder, then 10 per
 * message (see enqueueOnOneRedis).
 * Per message, in order: the positions (reserveSeqs), the collapse slots (collapse: a waiting message is
 * replaced and moved to the tail, one in flight or already tried is left as it is, a newer one already there
 * is kept), else the queue entry (put, or putIfAbsent for a stable id), then the partner's outbox:partners
 * entry (putIfAbsent). Returns the ids.
 *
 * While another instance's generation lease runs (an instance busy serving cached answers uses the
 * generations it read for a few milliseconds: SharedReads), the messages are due only once it has ended
 * (nextAttemptAt, by Redis's clock, as every instance's retry times are compared with its own): a change's
 * push, queued right after its cache invalidation was sent, never reaches a partner while an instance may
 * still answer from what the change made stale.
 */
const ENQUEUE_LUA = `${LEASES_LUA}
local now, count = ARGV[1], tonumber(ARGV[2])
if ARGV[3] ~= '' and redis.call('HGET', KEYS[#KEYS - 1], ARGV[3]) ~= ARGV[4] then return nil end
local due = others_lease_end(KEYS[5], ARGV[5], lease_now())
if due > 0 then due = due + 1 end
local meta = redis.call('HGET', KEYS[1], 'seq')
local last = (meta and cjson.decode(meta).seq or 0) + count
redis.call('HSET', KEYS[1], 'seq', '{"seq":' .. string.format('%d', last) .. '}')
redis.call('ZADD', KEYS[2], 'NX', 0, 'seq')
local function int(n) return string.format('%d', n) end
local function complete(json, id, seq)
  return string.sub(json, 1, -2) .. ',"id":' .. cjson.encode(id) .. ',"seq":' .. int(seq) .. ',"nextAttemptAt":' .. int(due) .. '}'
end
local ids = {}
for m = 0, count - 1 do
  local a = 6 + m * 10
  local k = tonumber(ARGV[a])
  local qv, qi = KEYS[k], KEYS[k + 1]
  local partner, slot0, slot1, id, mode = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local label, request, fresh, entry = ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], ARGV[a + 9]
  local seq = last - count + 1 + m
  local placed = nil
  if slot0 ~= '' then
    for _, slot in ipairs({ slot0, slot1 }) do
      local current = redis.call('HGET', qv, slot)
      if not current then
        redis.call('HSET', qv, slot, complete(fresh, slot, seq))
        redis.call('ZADD', qi, seq, slot)
        placed = slot
      else
        local c = cjson.decode(current)
        if c.inFlight ~= true and c.attempts == 0 then
          placed = slot
          if c.seq <= seq then
            local at = math.max(c.nextAttemptAt or 0, due)
            c.request, c.seq, c.enqueuedAt, c.label, c.nextAttemptAt = nil, nil, nil, label, nil
            local json = string.sub(cjson.encode(c), 1, -2)
            redis.call('HSET', qv, slot, json .. ',"seq":' .. int(seq) .. ',"nextAttemptAt":' .. int(at) .. ',"enqueuedAt":' .. now .. ',"request":' .. request .. '}')
            redis.call('ZADD', qi, seq, slot)
          end
        end
      end
      if placed then break end
    end
  end
  if not placed then
    placed = id
    local json = complete(fresh, id, seq)
    if mode == 'once' then
      if redis.call('HSETNX', qv, id, json) == 1 then redis.call('ZADD', qi, seq, id) end
    else
      redis.call('HSET', qv, id, json)
      redis.call('ZADD', qi, seq, id)
    end
  end
  ids[m + 1] = placed
  if redis.call('HSETNX', KEYS[3], partner, entry) == 1 then redis.call('ZADD', KEYS[4], 0, partner) end
end
return ids`;

/**
 * Outbox.claim on one Redis, in one round trip instead of a read and a compare-and-set: KEYS[1] is the
 * queue's values hash, ARGV the message's id and seq. Marks the message in flight when it is still there at
 * that seq and returns it; nil when not. `inFlight` is appended to the stored text (the body is never
 * decoded and re-encoded: cjson would turn an empty array into an object); a `false` an earlier failure left
 * stays before it, and the last of the two is the one JSON.parse and cjson read.
 */
const CLAIM_LUA = `
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return nil end
local m = cjson.decode(json)
if m.seq ~= tonumber(ARGV[2]) then return nil end
if m.inFlight ~= true then
  json = string.sub(json, 1, -2) .. ',"inFlight":true}'
  redis.call('HSET', KEYS[1], ARGV[1], json)
end
return json`;

/**
 * A message with fields added or replaced, as `{ ...message, ...fields }` would make it: on Node 20 a spread
 * followed by more fields is a slow path of V8 (spreading a new message was 3 % of the push bench's CPU
 * samples, this 0.2 %: bench/RESULTS.md). Object.assign sets, where a spread defines: the same for a
 * message, whose own fields are ours, never a partner's (its body is one of them, copied by reference).
 */
const withFields = <T extends object, F extends object>(message: T, fields: F): Omit<T, keyof F> & F => Object.assign({}, message, fields);


const NO_COUNTS: OutboxCounts = { delivered: 0, rejected: 0, dropped: 0 };

/**
 * A durable FIFO of outbound messages per partner, in the gateway's store,
 * so pushes and callbacks survive restarts and are shared by instances on
 * one Redis. Delivery is OutboxWorker's.
 */
export class Outbox {
  private readonly listeners: ((partnerIds: ReadonlySet<string>) => void)[] = [];

  constructor(private readonly store: Store) {}

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
   * script on one Redis, the batch's transaction on SQLite): undefined, and nothing queued, when it does not.
   * Push fan-out decides its partners under the registration generation it read last and has the enqueue
   * check that generation, instead of reading it before every change (PushFanOut.onChange).
   */
  async enqueueAllIf(guard: StoreGuard | undefined, messages: readonly EnqueueRequest[]): Promise<string[] | undefined> {
    if (messages.length === 0) return [];
    const atOnce = this.enqueueOnOneRedis(messages, guard);
    if (atOnce) {
      const ids = await atOnce;
      if (ids) this.enqueued(messages);
      return ids ?? undefined;
    }
    // one batch: on SQLite the positions and every partner's message are one commit instead of one each
    const ids = await this.store.batch(async () => {
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
    if (ids) this.enqueued(messages);
    return ids;
  }

  private enqueued(messages: readonly EnqueueRequest[]): void {
    const partnerIds = new Set(messages.map((m) => m.partnerId));
    for (const listener of this.listeners) listener(partnerIds);
  }

  /**
   * On one Redis (not a cluster, whose collections sit in different slots): every write of `enqueueAll`, the
   * positions, the collapse slots, the queue entries and the `outbox:partners` entries, in one script call
   * (ENQUEUE_LUA), doing exactly what `place` and `collapse` do one store call at a time. Undefined elsewhere.
   */
  private enqueueOnOneRedis(messages: readonly EnqueueRequest[], guard: StoreGuard | undefined): Promise<string[] | null> | undefined {
    if (!this.store.scriptOnOneRedis) return undefined;
    const queues = [...new Set(messages.map((m) => m.partnerId))];
    const collections = [META, PARTNERS, GENERATION_LEASES, ...queues.map(queueOf), ...(guard ? [guard.collection] : [])];
    const now = Date.now();
    // the guard's value as the store encodes it (JSON), compared with the stored text
    // and whose leases are not waited for: this instance's (SharedReads drops them as its writes complete)
    const holder = this.store.sharedReads?.holder ?? "";
    const args: (string | number)[] = [now, messages.length, guard?.key ?? "", guard ? JSON.stringify(guard.value) : "", holder];
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
    return this.store.scriptOnOneRedis<string[] | null>("outboxEnqueue", ENQUEUE_LUA, collections, args);
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
    const atOnce = this.store.scriptOnOneRedis?.<string | null>("outboxClaim", CLAIM_LUA, [queueOf(message.partnerId)], [message.id, message.seq]);
    if (atOnce) {
      const json = await atOnce;
      return json === null ? undefined : (JSON.parse(json) as OutboxMessage);
    }
    let found = false;
    const claimed = await this.store.update<OutboxMessage>(queueOf(message.partnerId), message.id, (current) => {
      found = current !== undefined && current.seq === message.seq;
      return found ? { value: withFields(current!, { inFlight: true }) } : undefined;
    });
    return found ? claimed : undefined;
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

  /** The first of `count` consecutive queue positions, after every position taken before. */
  private async reserveSeqs(count: number): Promise<number> {
    const counter = await this.store.update<{ seq: number }>(META, "seq", (current) => ({ value: { seq: (current?.seq ?? 0) + count } }));
    return counter!.seq - count + 1;
  }
}
