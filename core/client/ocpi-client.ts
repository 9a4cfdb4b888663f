import { randomUUID } from "node:crypto";
import type { HeaderPrefix } from "../../config/types";
import type { PartyRef, VersionNumber } from "../protocol/types";
import type { Envelope } from "../http/envelope";
import { routingHeaders } from "../http/routing-headers";
import { encodeToken } from "../partners/token-vault";

export interface CallTarget {
  url: string;
  token: string;
  /** how to write the token; `auto` means Base64 for 2.2+ and raw for 2.1.1, retrying the other on 401 */
  encoding: "raw" | "base64" | "auto";
  version?: VersionNumber;
  headerPrefix: HeaderPrefix;
  from?: PartyRef;
  to?: PartyRef;
  correlationId?: string;
}

export interface CallResult<T = unknown> {
  httpStatus: number;
  envelope: Envelope<T>;
  headers: Headers;
}

export type CallFailureKind = "unreachable" | "timeout" | "http" | "malformed" | "ocpi";

/** A call to a partner that did not end in status_code 1000; the message never contains the token. */
export class PartnerCallError extends Error {
  constructor(
    readonly kind: CallFailureKind,
    message: string,
    readonly httpStatus?: number,
    readonly statusCode?: number,
  ) {
    super(message);
    this.name = "PartnerCallError";
  }
}

/**
 * The one place that speaks HTTP to partners: auth per the partner's token
 * encoding, request and correlation ids, routing headers in the partner's
 * prefix, envelope parsing.
 */
export class OcpiClient {
  constructor(private readonly timeoutMs: number) {}

  async call<T = unknown>(method: string, target: CallTarget, body?: unknown): Promise<CallResult<T>> {
    const encodings: ("raw" | "base64")[] =
      target.encoding !== "auto" ? [target.encoding] : target.version === "2.1.1" ? ["raw", "base64"] : ["base64", "raw"];
    let result: CallResult<T> | undefined;
    for (const encoding of encodings) {
      result = await this.once<T>(method, target, encoding, body);
      if (result.httpStatus !== 401) break;
    }
    return this.check(method, target.url, result!);
  }

  private async once<T>(method: string, target: CallTarget, encoding: "raw" | "base64", body: unknown): Promise<CallResult<T>> {
    const headers: Record<string, string> = {
      Authorization: `Token ${encodeToken(target.token, encoding)}`,
      "X-Request-ID": randomUUID(),
      "X-Correlation-ID": target.correlationId ?? randomUUID(),
      Accept: "application/json",
      ...routingHeaders(target.headerPrefix, target.from, target.to),
    };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(target.url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timeout = (error as Error).name === "TimeoutError";
      throw new PartnerCallError(
        timeout ? "timeout" : "unreachable",
        `${method} ${safeUrl(target.url)} ${timeout ? `timed out after ${this.timeoutMs} ms` : "failed: " + describeNetworkError(error)}`,
      );
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // The connection can drop after the headers arrived; that is the partner being unreachable, not a bug here.
      throw new PartnerCallError("unreachable", `${method} ${safeUrl(target.url)} failed while reading the answer: ${describeNetworkError(error)}`);
    }
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { httpStatus: response.status, envelope: parsed as Envelope<T>, headers: response.headers };
  }

  private check<T>(method: string, url: string, result: CallResult<T>): CallResult<T> {
    const where = `${method} ${safeUrl(url)}`;
    const env = result.envelope;
    const isEnvelope = typeof env === "object" && env !== null && typeof env.status_code === "number";
    if (!isEnvelope) {
      throw new PartnerCallError(
        result.httpStatus >= 400 ? "http" : "malformed",
        `${where} answered HTTP ${result.httpStatus} without an OCPI envelope`,
        result.httpStatus,
      );
    }
    if (result.httpStatus >= 400 || env.status_code < 1000 || env.status_code >= 2000) {
      throw new PartnerCallError(
        result.httpStatus >= 400 && env.status_code < 2000 ? "http" : "ocpi",
        `${where} answered HTTP ${result.httpStatus}, status_code ${env.status_code}${env.status_message ? `: ${env.status_message}` : ""}`,
        result.httpStatus,
        env.status_code,
      );
    }
    return result;
  }
}

/** URLs are logged without query strings or userinfo, which can carry secrets. */
export const safeUrl = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "<invalid url>";
  }
};

const describeNetworkError = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as Error).message;
};
