import type { z } from "zod";
import type { Logger } from "pino";
import { PartnerCallError } from "../client/ocpi-client";
import { issuesOf } from "../model/object-type";
import { withoutNulls } from "../model/without-nulls";
import { describeIssues } from "../contract/errors";

/**
 * A partner's immediate answer to an asynchronous request we sent
 * (CommandResponse, ChargingProfileResponse), checked against its schema.
 * `timeout` is required in 2.2+ (OCPI 2.2.1 Commands module, §3.7), but an answer that
 * lacks only it is still understood: the partner has taken the request and
 * will post its outcome. Refusing the answer would close a request the
 * partner is carrying out (issue #9), so it is taken with `fallbackSeconds`
 * (our `server.command_timeout_seconds`) and logged. Anything else invalid
 * is a malformed answer. `what` names it in messages, e.g. "the partner's
 * CommandResponse to POST commands/START_SESSION".
 */
export const parseImmediateAnswer = (
  schema: z.ZodType,
  data: unknown,
  what: string,
  fallback: { seconds: number; log: Logger; partnerId: string },
): unknown => {
  const answer = withoutNulls(data);
  let parsed = schema.safeParse(answer);
  if (!parsed.success && lacksOnlyTimeout(answer, parsed.error)) {
    parsed = schema.safeParse({ ...(answer as object), timeout: fallback.seconds });
    if (parsed.success)
      fallback.log.warn({ partner: fallback.partnerId, answer: what, timeout: fallback.seconds }, "partner's answer has no timeout; taken with ours");
  }
  if (!parsed.success) throw new PartnerCallError("malformed", `${what} is invalid: ${describeIssues(issuesOf(parsed.error))}`);
  return parsed.data;
};

const lacksOnlyTimeout = (answer: unknown, error: z.ZodError): boolean =>
  typeof answer === "object" &&
  answer !== null &&
  (answer as { timeout?: unknown }).timeout === undefined &&
  issuesOf(error).every((issue) => issue.pointer === "/timeout");
