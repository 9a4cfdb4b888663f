import type { AdminRoute } from "../contract/admin-route";
import type { Outbox } from "../outbox/outbox";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PushResync } from "./push-resync";
import { answerJson } from "../outbox/partner-answer";

/**
 * GET /admin/v1/outbox: per partner, what waits for delivery and how
 * deliveries went, for operators and monitoring. Counts are flushed after
 * each delivery pass, so they may trail the queue by one pass;
 * `dead_lettered` is what waits in the partner's dead letters now.
 */
export const outboxRoute = (outbox: Outbox, registry: PartnerRegistry, resync: PushResync): AdminRoute => ({
  method: "GET",
  path: "/outbox",
  handle: async () => {
    const flags = new Map((await resync.flags()).map((f) => [f.partnerId, f]));
    const ids = new Set([...(await registry.list()).map((r) => r.id), ...(await outbox.partners())]);
    const data = [];
    for (const partner of [...ids].sort()) {
      const { items, total } = await outbox.pending(partner, 1);
      const head = items[0];
      const rejection = await outbox.lastRejection(partner);
      data.push({
        partner,
        queued: total,
        ...(await outbox.counts(partner)),
        dead_lettered: (await outbox.deadLetters(partner, 0, 1)).total,
        ...(rejection
          ? { last_rejected: { label: rejection.label, answer: answerJson(rejection.answer), last_error: rejection.lastError, at: new Date(rejection.at).toISOString() } }
          : {}),
        resync_pending: flags.has(partner),
        ...(flags.has(partner) ? { resync_since: flags.get(partner)!.since } : {}),
        ...(head?.attempts
          ? {
              head: {
                label: head.label,
                attempts: head.attempts,
                next_attempt_at: new Date(head.nextAttemptAt).toISOString(),
                failing_since: head.firstFailureAt ? new Date(head.firstFailureAt).toISOString() : undefined,
                last_error: head.lastError,
              },
            }
          : {}),
      });
    }
    return { data };
  },
});
