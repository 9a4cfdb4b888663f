import type { AdminRoute } from "../contract/admin-route";
import { notFound } from "../contract/errors";
import { parsePageRequest } from "../http/pagination";
import { safeUrl } from "../client/ocpi-client";
import type { DeadLetter, Requeued } from "../outbox/outbox-message";
import type { Outbox } from "../outbox/outbox";
import type { OutboundTarget } from "../client/outbound-request";
import { answerJson } from "../outbox/partner-answer";

const MAX_PAGE = 100;

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** A response_url can carry secrets in its query: shown like logged URLs. */
const targetJson = (target: OutboundTarget) => ("url" in target ? { url: safeUrl(target.url) } : target);

/**
 * A dead letter as the admin API shows it. Its body is what the message holds: the canonical (OCPI 2.3.0) object,
 * rendered for the partner's version and config at each delivery (`canonical: true`), or a wire body sent as it is
 * (one queued before objects were queued canonically, a command result).
 */
const deadLetterJson = (letter: DeadLetter) => ({
  id: letter.id,
  label: letter.label,
  request: {
    method: letter.request.method,
    target: targetJson(letter.request.target),
    body: letter.request.object ? letter.request.object.value : letter.request.body,
    canonical: letter.request.object !== undefined,
  },
  answer: answerJson(letter.answer),
  last_error: letter.lastError,
  attempts: letter.attempts,
  enqueued_at: iso(letter.enqueuedAt),
  failing_since: iso(letter.firstFailureAt),
  dead_lettered_at: iso(letter.deadLetteredAt),
});

const requeuedJson = (requeued: Requeued[]) => ({
  requeued: requeued.map((r) => ({ dead_letter_id: r.deadLetterId, id: r.id, label: r.label })),
});

/**
 * The dead letters of a partner (messages it rejected, kept by
 * the outbox): listed page by page (`offset`, `limit` up to 100), oldest
 * first, and moved back to the tail of its queue, all or one, once the
 * partner or the data is fixed.
 */
export const deadLetterRoutes = (outbox: Outbox): AdminRoute[] => [
  {
    method: "GET",
    path: "/outbox/:partner/dead-letters",
    handle: async ({ params, query }) => {
      const { offset, limit } = parsePageRequest(query, MAX_PAGE);
      const page = await outbox.deadLetters(params.partner, offset, limit);
      return { data: { partner: params.partner, total: page.total, offset, limit, dead_letters: page.items.map(deadLetterJson) } };
    },
  },
  {
    method: "POST",
    path: "/outbox/:partner/dead-letters/retry",
    handle: async ({ params }) => ({ data: requeuedJson(await outbox.retryDeadLetters(params.partner)) }),
  },
  {
    method: "POST",
    path: "/outbox/:partner/dead-letters/:id/retry",
    handle: async ({ params }) => {
      const requeued = await outbox.retryDeadLetters(params.partner, params.id);
      if (requeued.length === 0) throw notFound(`Dead letter ${params.id} of partner ${params.partner}`);
      return { data: requeuedJson(requeued) };
    },
  },
];
