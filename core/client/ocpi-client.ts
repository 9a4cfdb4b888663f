import { EventEmitter } from "node:events";
import { request } from "undici";
import type { Envelope } from "../http/envelope";
import { callHeaders, encodingsOf, type CallTarget } from "./call-target";
import { needsPublicAddress, outboundProblem, parseUrl } from "../partners/outbound-policy";
import { GuardedDispatchers, OutboundAddressError } from "./guarded-dispatcher";
import { answerExcerpt } from "./answer-excerpt";

export interface CallResult<T = unknown> {
  httpStatus: number;
  envelope: Envelope<T>;
  headers: AnswerHeaders;
}

/** The answer's headers, read by name as `Headers.get` reads them (several values joined with ", "), without building a `Headers`. */
export interface AnswerHeaders {
  get(name: string): string | null;
}

const answerHeaders = (raw: Record<string, string | string[] | undefined>): AnswerHeaders => ({
  get: (name) => {
    const value = raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  },
});

/**
 * Aborts what it bounds with a TimeoutError after `ms`, as AbortSignal.timeout does, at less cost per call:
 * undici takes an EventEmitter for a signal (its `aborted`, `reason` and "abort" event), and an
 * AbortController costs a transferable object each (about 2 % of a push delivery's CPU). `clear` when done.
 */
class Deadline extends EventEmitter {
  aborted = false;
  reason?: DOMException;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    super();
    this.timer = setTimeout(() => {
      this.aborted = true;
      this.reason = new DOMException(`The operation timed out after ${ms} ms`, "TimeoutError");
      this.emit("abort");
    }, ms);
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** `refused`: the URL is outside the partner's outbound policy; nothing was sent. */
export type CallFailureKind = "unreachable" | "timeout" | "http" | "malformed" | "ocpi" | "refused";

/** A call to a partner that did not end in status_code 1000; the message never contains the token. */
export class PartnerCallError extends Error {
  constructor(
    readonly kind: CallFailureKind,
    message: string,
    readonly httpStatus?: number,
    readonly statusCode?: number,
    /** the partner's own words, scrubbed of our token (answer-excerpt.ts): the envelope's status_message, else the first bytes of the body */
    readonly answer?: string,
    /** the answer's Retry-After header (a 429 or 503 asking us to wait), as sent */
    readonly retryAfter?: string,
  ) {
    super(message);
    this.name = "PartnerCallError";
  }
}

/**
 * The one place that speaks HTTP to partners: the outbound URL policy, auth
 * per the partner's token encoding, request and correlation ids, routing
 * headers in the partner's prefix, envelope parsing. Redirects are never
 * followed: a 3xx is a failed call, since its Location would be a URL the
 * policy never saw, and we would send it the partner's token.
 */
export class OcpiClient {
  private readonly dispatchers = new GuardedDispatchers();

  constructor(private readonly timeoutMs: number) {}

  async call<T = unknown>(method: string, target: CallTarget, body?: unknown): Promise<CallResult<T>> {
    const url = parseUrl(target.url);
    const problem = outboundProblem(url ?? target.url, target.policy);
    if (problem) throw new PartnerCallError("refused", `${method} ${safeUrl(target.url)} refused by the outbound URL policy: URL ${problem}`);
    const encodings = encodingsOf(target);
    let result: RawAnswer<T> | undefined;
    for (const encoding of encodings) {
      result = await this.once<T>(method, target, url!, encoding, body);
      if (result.httpStatus !== 401) break;
    }
    return this.check(method, target.url, result!, target.token);
  }

  private async once<T>(method: string, target: CallTarget, url: URL, encoding: "raw" | "base64", body: unknown): Promise<RawAnswer<T>> {
    const headers: Record<string, string> = { ...callHeaders(target, encoding), Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const where = () => `${method} ${safeUrl(target.url)}`;
    // the whole exchange, the answer's body included, within the timeout
    const timeout = new Deadline(this.timeoutMs);
    try {
      return await this.exchange<T>(method, target, url, headers, body, timeout, where);
    } finally {
      timeout.clear();
    }
  }

  private async exchange<T>(
    method: string,
    target: CallTarget,
    url: URL,
    headers: Record<string, string>,
    body: unknown,
    signal: Deadline,
    where: () => string,
  ): Promise<RawAnswer<T>> {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: method as "GET",
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        dispatcher: this.dispatchers.for(needsPublicAddress(url, target.policy)),
      });
    } catch (error) {
      throw this.networkFailure(where(), error);
    }
    const answer = answerHeaders(response.headers);
    if (response.statusCode >= 300 && response.statusCode < 400) {
      await response.body.dump().catch(() => undefined);
      return { httpStatus: response.statusCode, envelope: undefined as never, headers: answer, text: "" };
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      // The connection can drop after the headers arrived; that is the partner being unreachable, not a bug here.
      const failure = this.networkFailure(where(), error);
      throw failure.kind === "timeout" ? failure : new PartnerCallError("unreachable", `${where()} failed while reading the answer: ${describeNetworkError(error)}`);
    }
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { httpStatus: response.statusCode, envelope: parsed as Envelope<T>, headers: answer, text };
  }

  private networkFailure(where: string, error: unknown): PartnerCallError {
    if ((error as Error).name === "TimeoutError") return new PartnerCallError("timeout", `${where} timed out after ${this.timeoutMs} ms`);
    if (error instanceof OutboundAddressError) return new PartnerCallError("refused", `${where} refused by the outbound URL policy: ${error.message}`);
    return new PartnerCallError("unreachable", `${where} failed: ${describeNetworkError(error)}`);
  }

  private check<T>(method: string, url: string, result: RawAnswer<T>, token: string): CallResult<T> {
    const where = `${method} ${safeUrl(url)}`;
    if (result.httpStatus >= 300 && result.httpStatus < 400) {
      const location = result.headers.get("location");
      const to = location ? ` to ${safeUrl(location, url)}` : "";
      throw new PartnerCallError("http", `${where} answered HTTP ${result.httpStatus}: the redirect${to} was not followed`, result.httpStatus);
    }
    const env = result.envelope;
    const isEnvelope = typeof env === "object" && env !== null && typeof env.status_code === "number";
    if (!isEnvelope) {
      throw new PartnerCallError(
        result.httpStatus >= 400 ? "http" : "malformed",
        `${where} answered HTTP ${result.httpStatus} without an OCPI envelope`,
        result.httpStatus,
        undefined,
        answerExcerpt(result.text, token),
        result.headers.get("retry-after") ?? undefined,
      );
    }
    if (result.httpStatus >= 400 || env.status_code < 1000 || env.status_code >= 2000) {
      const said = answerExcerpt(typeof env.status_message === "string" ? env.status_message : undefined, token);
      throw new PartnerCallError(
        result.httpStatus >= 400 && env.status_code < 2000 ? "http" : "ocpi",
        `${where} answered HTTP ${result.httpStatus}, status_code ${env.status_code}${said ? `: ${said}` : ""}`,
        result.httpStatus,
        env.status_code,
        said,
        result.headers.get("retry-after") ?? undefined,
      );
    }
    return result;
  }
}

/** An answer as read, its body text kept for the records of a failed call. */
type RawAnswer<T> = CallResult<T> & { text: string };

/** URLs are logged without query strings or userinfo, which can carry secrets. */
export const safeUrl = (url: string, base?: string): string => {
  try {
    const u = new URL(url, base);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "<invalid url>";
  }
};

const describeNetworkError = (error: unknown): string => {
  const e = error as { code?: string; cause?: { code?: string }; errors?: { code?: string }[] };
  return e.code ?? e.cause?.code ?? e.errors?.[0]?.code ?? (error as Error).message;
};
