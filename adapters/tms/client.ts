import type { Logger } from "pino";
import type { z } from "zod";
import { BackendUnavailableError } from "../kit";
import {
  deviceSchema,
  settlementSchema,
  tmsErrorSchema,
  tmsPageSchema,
  type ActivationRequest,
  type Device,
  type DeviceUpdate,
  type Settlement,
  type TmsAssignment,
  type TmsErrorBody,
  type TmsPage,
} from "./contract";
import { terminalFieldOf } from "./mapping";
import type { TmsSettings } from "./settings";

/** How the system is named in answers and logs: never its URL's secrets or its key. */
export const TMS = "payment-terminal system";

const ACTIVATIONS = "/v1/activations";

/** The wait a 503 asks of the partner when the system names none. */
const DEFAULT_RETRY_AFTER_S = 5;

/**
 * What the system's answer to a write (or a GET by id) means for the
 * partner's request: the object is unknown, or the request is refused for
 * a field the partner gave (2001 naming it). Everything else the system
 * can answer is BackendUnavailableError (HTTP 503 + 3000).
 */
export type TmsRefusal = { kind: "unknown" } | { kind: "refused"; field: string; reason: string };

export class TmsRefused extends Error {
  constructor(readonly refusal: TmsRefusal) {
    super(refusal.kind === "unknown" ? "unknown to the payment-terminal system" : `/${refusal.field}: ${refusal.reason}`);
    this.name = "TmsRefused";
  }
}

/** A list, a GET by id, or a write on the device a partner names: what a 4xx can mean depends on it. */
type CallKind = "list" | "one" | "write";

interface Call<T> {
  kind: CallKind;
  method: string;
  path: string;
  schema: z.ZodType<T>;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
}

/**
 * What came back: a status and a body (undefined when empty or not JSON;
 * `issue`: why a 2xx body is not of the call's shape), or no whole answer
 * at all (`failed`: the error's name, e.g. TimeoutError).
 */
type Answer = { status: number; json: unknown; retryAfter: string | null; issue?: string } | { failed: string };

/**
 * The TMS v1 REST API (docs/tms-v1.md, "Calls and authentication" and
 * "Errors and how they are answered"), with the API key on every call.
 * Every answer that is not a success of the expected shape goes through
 * `failure`, the one place a status becomes a meaning: a TmsRefused the
 * ports turn into the partner's 404 or 2001, or BackendUnavailableError
 * (HTTP 503 + 3000). The key never appears in an error or a log line.
 */
export class TmsClient {
  private loggedKeyRefused = false;

  constructor(
    private readonly settings: TmsSettings,
    private readonly log: Logger,
  ) {}

  devices(changedAfter: number | undefined, cursor: string | undefined, limit = this.settings.page_limit): Promise<TmsPage<Device>> {
    return this.call({ kind: "list", method: "GET", path: "/v1/devices", schema: DEVICE_PAGE, query: { changed_after: changedAfter, cursor, limit } });
  }

  device(serial: string): Promise<Device | undefined> {
    return this.orUndefined(this.call({ kind: "one", method: "GET", path: `/v1/devices/${encodeURIComponent(serial)}`, schema: deviceSchema }));
  }

  updateDevice(serial: string, update: DeviceUpdate): Promise<Device> {
    return this.call({ kind: "write", method: "PUT", path: `/v1/devices/${encodeURIComponent(serial)}`, schema: deviceSchema, body: update });
  }

  assign(serial: string, assignment: TmsAssignment): Promise<Device> {
    return this.call({ kind: "write", method: "POST", path: `/v1/devices/${encodeURIComponent(serial)}/assignments`, schema: deviceSchema, body: assignment });
  }

  activate(request: ActivationRequest): Promise<Device> {
    return this.call({ kind: "write", method: "POST", path: ACTIVATIONS, schema: deviceSchema, body: request });
  }

  deactivate(serial: string): Promise<Device> {
    return this.call({ kind: "write", method: "POST", path: `/v1/devices/${encodeURIComponent(serial)}/deactivate`, schema: deviceSchema });
  }

  settlements(changedAfter: number | undefined, cursor: string | undefined, limit = this.settings.page_limit): Promise<TmsPage<Settlement>> {
    return this.call({ kind: "list", method: "GET", path: "/v1/settlements", schema: SETTLEMENT_PAGE, query: { changed_after: changedAfter, cursor, limit } });
  }

  settlement(id: string): Promise<Settlement | undefined> {
    return this.orUndefined(this.call({ kind: "one", method: "GET", path: `/v1/settlements/${encodeURIComponent(id)}`, schema: settlementSchema }));
  }

  private async orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof TmsRefused && error.refusal.kind === "unknown") return undefined;
      throw error;
    }
  }

  private async call<T>(call: Call<T>): Promise<T> {
    const answer = await this.fetch(call);
    if ("failed" in answer || answer.status < 200 || answer.status >= 300) throw this.failure(call, answer);
    const parsed = call.schema.safeParse(answer.json);
    if (parsed.success) return parsed.data;
    // the issues' paths and kinds, never the values (a body is the system's data, not ours to log)
    const issue = answer.json === undefined ? "not JSON" : parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(body)"}: ${i.code}`).join("; ");
    throw this.failure(call, { ...answer, issue });
  }

  /**
   * The call and its whole answer within `request_timeout_ms`: the
   * signal also aborts reading the body, so a system that sends its
   * headers and then stalls is a timeout like one that never answers.
   */
  private async fetch(call: Call<unknown>): Promise<Answer> {
    const url = new URL(`${this.settings.base_url.replace(/\/+$/, "")}${call.path}`);
    for (const [key, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    try {
      const response = await fetch(url, {
        method: call.method,
        headers: { "X-Api-Key": this.settings.api_key, Accept: "application/json", ...(call.body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(this.settings.request_timeout_ms),
        redirect: "manual",
      });
      return { status: response.status, json: parse(await response.text()), retryAfter: response.headers.get("retry-after") };
    } catch (error) {
      return { failed: (error as Error).name };
    }
  }

  /**
   * What every answer but a 2xx of the call's shape means, and no
   * answer (docs/tms-v1.md, "Errors and how they are answered"). The
   * partner is told its request is wrong (2001 naming the field) or
   * unknown (404) only when the system says so of what the partner gave;
   * the system being busy, down or refusing a call the gateway built is
   * ours to fix or wait out: HTTP 503 + 3000.
   */
  private failure(call: Call<unknown>, answer: Answer): TmsRefused | BackendUnavailableError {
    const { method, path } = call;
    if ("failed" in answer) {
      this.log.warn({ method, path, reason: answer.failed }, "payment-terminal system unreachable");
      return new BackendUnavailableError(TMS);
    }
    const { status, issue } = answer;
    if (issue !== undefined) {
      this.log.warn({ method, path, status, issue }, "payment-terminal system answered a body TMS v1 does not allow");
      return new BackendUnavailableError(TMS);
    }
    const body = errorBodyOf(answer.json);
    const code = body.error ?? `HTTP ${status}`;
    const said = body.message ?? code;
    // busy (429), maintenance and other 5xx, a timeout on its side (408): the partner retries when the system asks
    if (status === 429 || status === 408 || status >= 500) return new BackendUnavailableError(TMS, retryAfterOf(answer.retryAfter));
    // our api_key is wrong or lacks the right: the operator must act, the partner can only wait
    if (status === 401 || status === 403) {
      if (!this.loggedKeyRefused) this.log.error({ method, path, status }, "payment-terminal system refused the api_key (adapters.tms.api_key)");
      this.loggedKeyRefused = true;
      return new BackendUnavailableError(TMS);
    }
    if (call.kind === "one" && (status === 404 || status === 410)) return new TmsRefused({ kind: "unknown" });
    if (call.kind === "write" && status >= 400 && status < 500) {
      if (status === 404 && code === "no_stock")
        return new TmsRefused({ kind: "refused", field: "terminal_id", reason: "no terminal in stock for this CPO at the payment-terminal provider: name one with terminal_id" });
      if (status === 404 || status === 410) return new TmsRefused({ kind: "unknown" });
      if (status === 409) {
        const what = path === ACTIVATIONS ? "the terminal is already active" : `the ${TMS} refused the change`;
        return new TmsRefused({ kind: "refused", field: "terminal_id", reason: `conflict: ${what} (${TMS}: ${said})` });
      }
      const field = body.field === undefined ? undefined : terminalFieldOf(body.field);
      if (field !== undefined) return new TmsRefused({ kind: "refused", field, reason: `refused by the ${TMS} (${code}: ${said})` });
    }
    // a 3xx, or a 4xx about a call the gateway built (a list's query, an id's path, a refusal naming nothing the partner gave)
    this.log.error({ method, path, status, code, field: body.field }, "payment-terminal system refused the gateway's call; answered 503");
    return new BackendUnavailableError(TMS);
  }
}

const DEVICE_PAGE = tmsPageSchema(deviceSchema);
const SETTLEMENT_PAGE = tmsPageSchema(settlementSchema);

/** The system's Retry-After when it is a whole number of seconds, else DEFAULT_RETRY_AFTER_S. */
const retryAfterOf = (header: string | null): number => {
  const seconds = header !== null && /^\s*\d+\s*$/.test(header) ? Number(header) : NaN;
  return Number.isSafeInteger(seconds) && seconds > 0 ? seconds : DEFAULT_RETRY_AFTER_S;
};

const errorBodyOf = (json: unknown): TmsErrorBody => {
  const parsed = tmsErrorSchema.safeParse(json);
  return parsed.success ? parsed.data : {};
};

const parse = (text: string): unknown => {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};
