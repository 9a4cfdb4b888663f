import { PartnerCallError } from "../client/ocpi-client";

/** What a partner answered to a delivery, as kept with the message; its words are scrubbed of our token by the client. */
export interface PartnerAnswer {
  httpStatus?: number;
  /** set when the answer was an OCPI envelope */
  statusCode?: number;
  statusMessage?: string;
  /** the first bytes of an answer that was not an envelope (an HTML error page, a framework's 422 body) */
  body?: string;
}

export const answerOf = (error: unknown): PartnerAnswer => {
  if (!(error instanceof PartnerCallError)) return {};
  const enveloped = error.statusCode !== undefined;
  return {
    httpStatus: error.httpStatus,
    statusCode: error.statusCode,
    statusMessage: enveloped ? error.answer : undefined,
    body: enveloped ? undefined : error.answer,
  };
};

/** A failed delivery in one line, for `last_error` and logs: the error, and what came back outside the envelope. */
export const describeFailure = (error: unknown): string => {
  const message = (error as Error).message;
  const { body } = answerOf(error);
  return body ? `${message}: ${body}` : message;
};

/** The answer as the admin API shows it. */
export const answerJson = (answer: PartnerAnswer) => ({
  http_status: answer.httpStatus,
  status_code: answer.statusCode,
  status_message: answer.statusMessage,
  body: answer.body,
});
