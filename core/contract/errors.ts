import { Status } from "../protocol/status";

/**
 * A failure that reached the protocol layer. Thrown anywhere below a route
 * and turned into an envelope by the error middleware, so plugins never
 * build error responses themselves. Messages must never contain secrets.
 */
export class OcpiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly httpStatus = 200,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "OcpiError";
  }
}

export interface FieldIssue {
  /** JSON pointer into the request body, e.g. /evses/0/status */
  pointer: string;
  message: string;
}

export const invalid = (message: string): OcpiError => new OcpiError(Status.INVALID_PARAMETERS, message);

/** One issue as `pointer: message`, the form every 2001 message and log line uses. */
export const describeIssue = (issue: FieldIssue): string => `${issue.pointer || "/"}: ${issue.message}`;

export const describeIssues = (issues: FieldIssue[]): string => issues.map(describeIssue).join("; ");

export const invalidFields = (issues: FieldIssue[]): OcpiError => invalid(describeIssues(issues));

/** Unknown object on GET (and PATCH of an unknown object): HTTP 404 with an envelope. */
export const notFound = (what: string, statusCode: number = Status.INVALID_PARAMETERS): OcpiError =>
  new OcpiError(statusCode, `${what} not found`, 404);

export const unauthorized = (message = "Unknown or missing credentials token"): OcpiError =>
  new OcpiError(Status.CLIENT_ERROR, message, 401);

export const methodNotAllowed = (message: string): OcpiError => new OcpiError(Status.CLIENT_ERROR, message, 405);

export const serverError = (statusCode: number, message: string): OcpiError => new OcpiError(statusCode, message);

/**
 * The backend behind an adapter (its database, its API) cannot serve the call now: HTTP 503 + 3000 naming
 * the backend, with Retry-After, no stack. An adapter throws it from a port; `backend` is a name an
 * operator recognises ("SteVe database") and never carries credentials.
 */
export class BackendUnavailableError extends OcpiError {
  constructor(readonly backend: string, retryAfterSeconds = 5) {
    super(Status.SERVER_ERROR, `${backend} unavailable; retry later`, 503, { "Retry-After": String(retryAfterSeconds) });
    this.name = "BackendUnavailableError";
  }
}
