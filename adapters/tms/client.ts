import type { Logger } from "pino";
import { BackendUnavailableError } from "../kit";
import type { ActivationRequest, Device, DeviceUpdate, Settlement, TmsAssignment, TmsPage } from "./contract";
import type { TmsSettings } from "./settings";

/** How the system is named in answers and logs: never its URL's secrets or its key. */
export const TMS = "payment-terminal system";

/** A 4xx answer of the system, with its error code ("not_found", "no_stock", "conflict"…) and its message. */
export class TmsError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "TmsError";
  }
}

/**
 * The TMS v1 REST API (docs/tms-v1.md, "Calls and authentication" and
 * "Errors and how they are answered"), with the API key on every call.
 * A 4xx is a TmsError; a 5xx (503: maintenance), a timeout, a refused
 * connection or a 401 (our key is wrong: the operator must act, the
 * partner can only wait) is BackendUnavailableError, answered HTTP 503 +
 * 3000. The key never appears in an error or a log line.
 */
export class TmsClient {
  private loggedKeyRefused = false;

  constructor(
    private readonly settings: TmsSettings,
    private readonly log: Logger,
  ) {}

  devices(changedAfter: number | undefined, cursor: string | undefined, limit = this.settings.page_limit): Promise<TmsPage<Device>> {
    return this.call("GET", "/v1/devices", undefined, { changed_after: changedAfter, cursor, limit });
  }

  device(serial: string): Promise<Device | undefined> {
    return this.orUndefined(this.call("GET", `/v1/devices/${encodeURIComponent(serial)}`));
  }

  updateDevice(serial: string, update: DeviceUpdate): Promise<Device> {
    return this.call("PUT", `/v1/devices/${encodeURIComponent(serial)}`, update);
  }

  assign(serial: string, assignment: TmsAssignment): Promise<Device> {
    return this.call("POST", `/v1/devices/${encodeURIComponent(serial)}/assignments`, assignment);
  }

  activate(request: ActivationRequest): Promise<Device> {
    return this.call("POST", "/v1/activations", request);
  }

  deactivate(serial: string): Promise<Device> {
    return this.call("POST", `/v1/devices/${encodeURIComponent(serial)}/deactivate`);
  }

  settlements(changedAfter: number | undefined, cursor: string | undefined, limit = this.settings.page_limit): Promise<TmsPage<Settlement>> {
    return this.call("GET", "/v1/settlements", undefined, { changed_after: changedAfter, cursor, limit });
  }

  settlement(id: string): Promise<Settlement | undefined> {
    return this.orUndefined(this.call("GET", `/v1/settlements/${encodeURIComponent(id)}`));
  }

  private async orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof TmsError && error.httpStatus === 404) return undefined;
      throw error;
    }
  }

  private async call<T>(method: string, path: string, body?: unknown, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const url = new URL(`${this.settings.base_url.replace(/\/+$/, "")}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { "X-Api-Key": this.settings.api_key, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.settings.request_timeout_ms),
        redirect: "manual",
      });
    } catch (error) {
      this.log.warn({ method, path, reason: (error as Error).name }, "payment-terminal system unreachable");
      throw new BackendUnavailableError(TMS);
    }
    const text = await response.text();
    const json = parse(text);
    if (response.ok) {
      if (json === undefined) throw new BackendUnavailableError(TMS);
      return json as T;
    }
    const { error, message } = (json ?? {}) as { error?: string; message?: string };
    if (response.status === 401) {
      if (!this.loggedKeyRefused) this.log.error({ method, path }, "payment-terminal system refused the api_key (adapters.tms.api_key)");
      this.loggedKeyRefused = true;
      throw new BackendUnavailableError(TMS);
    }
    if (response.status >= 400 && response.status < 500) throw new TmsError(response.status, error ?? "error", message ?? error ?? `HTTP ${response.status}`);
    const retryAfter = Number(response.headers.get("retry-after"));
    throw new BackendUnavailableError(TMS, Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : 5);
  }
}

const parse = (text: string): unknown => {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};
