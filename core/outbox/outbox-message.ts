import type { PartnerAnswer } from "./partner-answer";
import type { OutboundRequest } from "../client/outbound-request";

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

/* The outbox's collections in the store. */
export const queueOf = (partnerId: string) => `outbox:queue:${partnerId}`;
/** the two places a message with this collapse key can be in */
export const slotsOf = (collapseKey: string): string[] => [`slot0:${collapseKey}`, `slot1:${collapseKey}`];
export const PARTNERS = "outbox:partners";
export const META = "outbox:meta";
export const COUNTS = "outbox:counts";
export const deadLettersOf = (partnerId: string) => `outbox:dead:${partnerId}`;
export const sentOf = (partnerId: string) => `outbox:sent:${partnerId}`;
/** how long the marker of a message sent under a stable id is kept: as long as a pending request's entry (PendingRequests) */
export const SENT_RETENTION_MS = 24 * 60 * 60_000;
export const REJECTIONS = "outbox:last-rejected";

/**
 * A message with fields added or replaced, as `{ ...message, ...fields }` would make it: on Node 20 a spread
 * followed by more fields is a slow path of V8 (spreading a new message was 3 % of the push bench's CPU
 * samples, this 0.2 %: bench/RESULTS.md). Object.assign sets, where a spread defines: the same for a
 * message, whose own fields are ours, never a partner's (its body is one of them, copied by reference).
 */
export const withFields = <T extends object, F extends object>(message: T, fields: F): Omit<T, keyof F> & F => Object.assign({}, message, fields);

/**
 * Whether two order keys (object paths, "locations:NLGWY/LOC1/EVSE1") name the same object, or one a part of
 * the other: a Location's PUT and its EVSE's PATCH keep their order, two EVSEs' need none.
 */
export const related = (a: string, b: string): boolean => a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);

/** A message's place in a pass of its lane: its id and seq (a collapse slot's id is reused, its seq is not). */
export const tagOf = (message: OutboxMessage): string => `${message.id}@${message.seq}`;

/** a message as it was sent: a collapse key's slot takes later messages under the same id, with other positions */
export const sentKey = (message: OutboxMessage) => `${message.partnerId}\n${message.id}\n${message.seq}`;
