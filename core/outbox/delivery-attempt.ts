import type { Logger } from "pino";
import type { OutboxCounts, OutboxMessage } from "./outbox-message";
import type { Outbox } from "./outbox";
import type { OutboundRequest } from "../client/outbound-request";
import type { RetryPolicy } from "../contract/partner-profile";
import { isRetryable, retryDelay } from "./retry-policy";
import { answerOf, describeFailure } from "./partner-answer";

export type OutboundSender = (partnerId: string, request: OutboundRequest) => Promise<void>;

export interface OutboxEvents {
  delivered?(message: OutboxMessage): void | Promise<void>;
  /** the partner refused the message: it was dead-lettered */
  rejected?(message: OutboxMessage, error: unknown): void | Promise<void>;
  /** the partner's backlog was dropped; it needs a full resync when it is back */
  resyncNeeded?(partnerId: string): void | Promise<void>;
}

/** what is to be recorded in the store of a message that was sent (a delivery, or a refusal), and what follows once it is */
export interface Sent {
  /** `again`: an earlier attempt to record it may have been applied (Outbox.remove checks its collapse slot then) */
  record(again: boolean): Promise<void>;
  recorded(counts: OutboxCounts): Promise<void>;
}

/** What an attempt uses of the worker. */
export interface AttemptDeps {
  outbox: Outbox;
  send: OutboundSender;
  policyOf(partnerId: string): RetryPolicy;
  log: Logger;
  events: OutboxEvents;
}

/**
 * Sends one message and says what is to be recorded of it: delivered (removed, after its `once` marker),
 * refused (dead-lettered with the partner's answer: isRetryable), or, when it failed and may be retried, the
 * retry time written (Outbox.failed) and whether the partner has failed past its backlog window.
 */
export const attemptDelivery = async (deps: AttemptDeps, message: OutboxMessage): Promise<Sent | { retry: "retry" | "backlog expired" }> => {
  const { partnerId } = message;
  if (message.once && (await deps.outbox.wasSent(message))) {
    // enqueued again after it was delivered (a retried enqueue whose first write had landed): dropped unsent
    return {
      record: (again) => deps.outbox.remove(message, again),
      recorded: async () => deps.log.info({ partner: partnerId, message: message.label, id: message.id }, "message enqueued again after its delivery; dropped unsent"),
    };
  }
  // a message enqueued under a stable id is marked sent before it leaves the queue (Outbox.markSent)
  const record = (leave: (again: boolean) => Promise<void>) =>
    message.once
      ? async (again: boolean) => {
          await deps.outbox.markSent(message);
          await leave(again);
        }
      : leave;
  try {
    await deps.send(partnerId, message.request);
  } catch (error) {
    const failure = describeFailure(error);
    if (!isRetryable(error)) {
      // Whatever the module and whether or not the message is essential: what a partner refused is kept, with its answer.
      const answer = answerOf(error);
      return {
        record: record(() => deps.outbox.deadLetter(message, failure, answer)),
        recorded: async (passCounts) => {
          passCounts.rejected++;
          deps.log.warn({ partner: partnerId, message: message.label, id: message.id, error: failure }, "push rejected by partner; dead-lettered");
          await deps.events.rejected?.(message, error);
        },
      };
    }
    const policy = deps.policyOf(partnerId);
    const retryAt = Date.now() + retryDelay(policy, message.attempts);
    const failed = await deps.outbox.failed(message, failure, retryAt);
    deps.log.info({ partner: partnerId, message: message.label, attempts: failed?.attempts, error: failure }, "delivery failed; will retry");
    // dropped once the deliveries under way have ended (deliverQueue), so none of them is counted twice
    const expired = failed?.firstFailureAt !== undefined && Date.now() - failed.firstFailureAt > policy.backlogWindowMs;
    return { retry: expired ? "backlog expired" : "retry" };
  }
  return {
    // the first removal of a message this lane claimed needs no look at its collapse slot (Outbox.remove)
    record: record((again) => deps.outbox.remove(message, again)),
    recorded: async (passCounts) => {
      passCounts.delivered++;
      await deps.events.delivered?.(message);
    },
  };
};
