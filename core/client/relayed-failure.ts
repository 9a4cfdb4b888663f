import { OcpiError } from "../contract/errors";
import { Status } from "../protocol/status";
import { PartnerCallError } from "./ocpi-client";

/**
 * A call to a partner made for our backend (the admin API, the CLI), its failures as answers to that backend:
 * the partner's 404 as a 404, its 2xxx refusal with its own status code, anything else (unreachable, a server
 * error, an answer that is no envelope) 3001 on HTTP 502. `who` names the partner's role in the messages.
 */
export const relayedFrom =
  (who: string) =>
  async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof PartnerCallError)) throw error;
      const said = error.answer ? `: ${error.answer}` : "";
      if (error.httpStatus === 404) throw new OcpiError(Status.INVALID_PARAMETERS, `The ${who} answered not found${said}`, 404);
      if (error.statusCode !== undefined && error.statusCode >= 2000 && error.statusCode < 3000) throw new OcpiError(error.statusCode, `The ${who} refused the request${said}`);
      throw new OcpiError(Status.CLIENT_API_UNREACHABLE, `The ${who} could not be reached or failed: ${error.message}`, 502);
    }
  };
