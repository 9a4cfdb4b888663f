import { randomUUID } from "node:crypto";
import type { Store } from "../store/port";
import type { HttpMethod } from "../plugin";
import type { InterfaceRole, PartyRef } from "../protocol/types";

/** Where an outbound message goes: a module endpoint of the partner, or a URL it gave us (response_url). */
export type OutboundTarget = { module: string; role: InterfaceRole; path?: string; query?: Record<string, string> } | { url: string };

export interface OutboundRequest {
  method: HttpMethod;
  target: OutboundTarget;
  /** wire body, already in the partner's version */
  body?: unknown;
  from?: PartyRef;
  to?: PartyRef;
}

export interface OutboxMessage {
  id: string;
  partnerId: string;
  seq: number;
  /** set while a worker delivers it: a newer message then queues behind instead of collapsing into it */
  inFlight?: boolean;
  request: OutboundRequest;
  /** waiting messages with the same key are replaced by the newest (repeated EVSE status changes) */
  collapseKey?: string;
  /** delivered even when the backlog of a long-unreachable partner is dropped (CDRs, final sessions, command results) */
  essential?: boolean;
  /** for logs, e.g. "PUT locations NL/GWY/LOC1" */
  label: string;
  attempts: number;
  nextAttemptAt: number;
  firstFailureAt?: number;
  lastError?: string;
  enqueuedAt: number;
}

export interface EnqueueRequest {
  partnerId: string;
  request: OutboundRequest;
  label: string;
  collapseKey?: string;
  essential?: boolean;
}

const queueOf = (partnerId: string) => `outbox:queue:${partnerId}`;
const collapseOf = (partnerId: string) => `outbox:collapse:${partnerId}`;
const PARTNERS = "outbox:partners";
const META = "outbox:meta";

/**
 * A durable FIFO of outbound messages per partner, in the gateway's store,
 * so pushes and callbacks survive restarts and are shared by instances on
 * one Redis. Delivery is OutboxWorker's.
 */
export class Outbox {
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly store: Store) {}

  /** Called after every enqueue, so a worker can deliver at once instead of at its next poll. */
  onEnqueue(listener: () => void): void {
    this.listeners.push(listener);
  }

  async enqueue(message: EnqueueRequest): Promise<string> {
    if (message.collapseKey) {
      const collapsed = await this.collapseInto(message);
      if (collapsed) return this.notify(collapsed);
    }
    const seq = await this.nextSeq();
    const id = randomUUID();
    const stored: OutboxMessage = { ...message, id, seq, attempts: 0, nextAttemptAt: 0, enqueuedAt: Date.now() };
    await this.store.put(queueOf(message.partnerId), id, stored, seq);
    if (message.collapseKey) await this.store.put(collapseOf(message.partnerId), message.collapseKey, { id });
    await this.store.put(PARTNERS, message.partnerId, { partnerId: message.partnerId });
    return this.notify(id);
  }

  /** Replaces a waiting (not in-flight) message with the same collapse key; its place in the queue is kept. */
  private async collapseInto(message: EnqueueRequest): Promise<string | undefined> {
    const pointer = await this.store.get<{ id: string }>(collapseOf(message.partnerId), message.collapseKey!);
    if (!pointer) return undefined;
    let merged = false;
    await this.store.update<OutboxMessage>(queueOf(message.partnerId), pointer.id, (current) => {
      merged = current !== undefined && !current.inFlight;
      return merged ? { value: { ...current!, request: message.request, label: message.label } } : undefined;
    });
    return merged ? pointer.id : undefined;
  }

  async partners(): Promise<string[]> {
    const page = await this.store.range<{ partnerId: string }>(PARTNERS, { offset: 0, limit: 100_000 });
    return page.items.map((p) => p.partnerId);
  }

  async head(partnerId: string): Promise<OutboxMessage | undefined> {
    return (await this.store.range<OutboxMessage>(queueOf(partnerId), { offset: 0, limit: 1 })).items[0];
  }

  async pending(partnerId: string, limit = 100_000): Promise<{ items: OutboxMessage[]; total: number }> {
    return this.store.range<OutboxMessage>(queueOf(partnerId), { offset: 0, limit });
  }

  /** Marks the message as being delivered and returns its current content (a collapse may have changed it). */
  async claim(message: OutboxMessage): Promise<OutboxMessage | undefined> {
    let found = false;
    const claimed = await this.store.update<OutboxMessage>(queueOf(message.partnerId), message.id, (current) => {
      found = current !== undefined;
      return current ? { value: { ...current, inFlight: true } } : undefined;
    });
    return found ? claimed : undefined;
  }

  async remove(message: OutboxMessage): Promise<void> {
    await this.store.delete(queueOf(message.partnerId), message.id);
    if (message.collapseKey) {
      const pointer = await this.store.get<{ id: string }>(collapseOf(message.partnerId), message.collapseKey);
      if (pointer?.id === message.id) await this.store.delete(collapseOf(message.partnerId), message.collapseKey);
    }
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

  /** Forgets a partner with an empty queue, so workers stop looking at it. */
  async retire(partnerId: string): Promise<void> {
    if (!(await this.head(partnerId))) await this.store.delete(PARTNERS, partnerId);
  }

  private async nextSeq(): Promise<number> {
    const counter = await this.store.update<{ seq: number }>(META, "seq", (current) => ({ value: { seq: (current?.seq ?? 0) + 1 } }));
    return counter!.seq;
  }

  private notify(id: string): string {
    for (const listener of this.listeners) listener();
    return id;
  }
}
