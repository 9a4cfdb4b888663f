/**
 * SteVe's REST API (≥3.11; docs/steve.md, "REST operations called"): the operations
 * calls and the ocppTags resource, with HTTP Basic auth (a web user and its
 * API password). Every failure becomes a SteveRestError whose message names
 * the call without credentials: the password never reaches a message or log.
 */

export interface RestSettings {
  /** e.g. http://steve.internal:8080/steve (SteVe's context path included) */
  base_url: string;
  user: string;
  password: string;
  timeout_ms: number;
}

/** SteVe's OcppOperationResponse: the answer of every /api/v1/operations/* call. */
export interface OcppOperationResponse {
  taskId: number;
  /** false: SteVe's own wait for the station ran out */
  taskFinished: boolean;
  successResponses: { chargeBoxId: string; response: string }[];
  errorResponses: { chargeBoxId: string; errorCode: string; errorDescription?: string | null; errorDetails?: unknown }[];
  exceptions: { chargeBoxId: string; exceptionMessage: string }[];
}

/** SteVe's view of an ocpp_tag (GET/POST/PUT /api/v1/ocppTags). */
export interface OcppTagView {
  ocppTagPk: number;
  idTag: string;
  parentIdTag: string | null;
  expiryDate: string | null;
  maxActiveTransactionCount: number;
  note: string | null;
  blocked?: boolean;
}

/** OcppTagForm: what POST and PUT take. */
export interface OcppTagForm {
  idTag: string;
  parentIdTag?: string | null;
  expiryDate?: string | null;
  /** 0 blocks the tag */
  maxActiveTransactionCount?: number;
  note?: string | null;
}

export type RestFailureKind =
  /** no connection (refused, DNS, reset): SteVe is down or the URL is wrong */
  | "unreachable"
  /** no answer within timeout_ms */
  | "timeout"
  /** SteVe answered with an HTTP error (401 bad credentials, 400 invalid parameters, 500 …) */
  | "http"
  /** an answer that is not SteVe's JSON */
  | "invalid";

export class SteveRestError extends Error {
  constructor(
    readonly kind: RestFailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "SteveRestError";
  }
}

/** The error code of a failed connection (ECONNREFUSED, ENOTFOUND, …), from fetch's nested causes. */
function causeCode(err: unknown): string {
  let current: unknown = err;
  for (let i = 0; i < 5 && current; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (err as Error)?.message ?? "unknown error";
}

export class SteveRest {
  private readonly base: string;
  private readonly authorization: string;

  constructor(private readonly settings: RestSettings) {
    this.base = settings.base_url.replace(/\/+$/, "");
    this.authorization = `Basic ${Buffer.from(`${settings.user}:${settings.password}`).toString("base64")}`;
  }

  /** The API base as logs may show it. */
  get where(): string {
    return `${this.base}/api/v1`;
  }

  /** POST /api/v1/operations/<operation> for one charge box; resolves with SteVe's answer once the station answered (or SteVe gave up). */
  operation(operation: string, body: Record<string, unknown>): Promise<OcppOperationResponse> {
    return this.call<OcppOperationResponse>("POST", `operations/${operation}`, body).then((answer) => {
      if (!answer || typeof answer.taskFinished !== "boolean" || !Array.isArray(answer.successResponses))
        throw new SteveRestError("invalid", `POST ${this.where}/operations/${operation}: not an OcppOperationResponse`);
      return { ...answer, errorResponses: answer.errorResponses ?? [], exceptions: answer.exceptions ?? [] };
    });
  }

  async findTag(idTag: string): Promise<OcppTagView | undefined> {
    const tags = await this.call<OcppTagView[]>("GET", `ocppTags?idTag=${encodeURIComponent(idTag)}`);
    // SteVe's id_tag is unique in any letter case (its column's collation), so its lookup is too.
    return Array.isArray(tags) ? tags.find((t) => t.idTag.toUpperCase() === idTag.toUpperCase()) : undefined;
  }

  createTag(form: OcppTagForm): Promise<OcppTagView> {
    return this.call<OcppTagView>("POST", "ocppTags", form);
  }

  updateTag(ocppTagPk: number, form: OcppTagForm): Promise<OcppTagView> {
    return this.call<OcppTagView>("PUT", `ocppTags/${ocppTagPk}`, form);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const label = `${method} ${this.where}/${path.split("?")[0]}`;
    let res: Response;
    try {
      res = await fetch(`${this.where}/${path}`, {
        method,
        headers: { authorization: this.authorization, accept: "application/json", ...(body ? { "content-type": "application/json" } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: "manual",
        signal: AbortSignal.timeout(this.settings.timeout_ms),
      });
    } catch (err) {
      if ((err as Error)?.name === "TimeoutError") throw new SteveRestError("timeout", `${label}: no answer within ${this.settings.timeout_ms} ms`);
      throw new SteveRestError("unreachable", `${label}: ${causeCode(err)}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if ((err as Error)?.name === "TimeoutError") throw new SteveRestError("timeout", `${label}: no answer within ${this.settings.timeout_ms} ms`);
      throw new SteveRestError("unreachable", `${label}: ${causeCode(err)}`);
    }
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      // Spring's error body carries a `message`; only its start is kept (it is SteVe's text, not ours).
      const said = typeof (parsed as { message?: unknown })?.message === "string" ? `: ${String((parsed as { message: string }).message).slice(0, 200)}` : "";
      throw new SteveRestError("http", `${label} answered HTTP ${res.status}${said}`, res.status);
    }
    if (parsed === undefined) throw new SteveRestError("invalid", `${label}: the answer is not JSON`);
    return parsed as T;
  }
}
