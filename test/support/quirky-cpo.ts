import http from "node:http";
import type { PartyRef } from "../../core/protocol/types";
import { ocpiRequest, type HttpResult } from "./gateway-process";
import { closeServer, listenOnLoopback } from "./loopback-server";

/**
 * A partner that no one here wrote (issue #9): an OCPI 2.2.1 CPO on
 * loopback, written with node:http, close to the spec but not on it. It
 * serves its versions, version details and credentials endpoints itself
 * (its credentials answer carries `null` for optional fields, as a Go or
 * Python framework's serializer writes them); everything else is answered
 * by handlers the test installs with `on`, which may answer anything at
 * all: an envelope, a bare HTTP error, or a cut connection.
 */

export interface QuirkyRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  /** the parsed JSON body, or undefined */
  body: any;
}

/** An answer: an HTTP status with headers and a JSON body (an envelope unless the handler wants otherwise), or a cut connection. */
export type QuirkyReply = { status?: number; headers?: Record<string, string>; body?: unknown } | "cut";

type Handler = (request: QuirkyRequest) => QuirkyReply | Promise<QuirkyReply>;

/** The OCPI envelope around `data`. */
export const envelope = (data: unknown, statusCode = 1000, message?: string) => ({
  data,
  status_code: statusCode,
  ...(message ? { status_message: message } : {}),
  timestamp: new Date().toISOString(),
});

const VERSION = "2.2.1";

export class QuirkyCpo {
  readonly url: string;
  /** the token it gives us in its credentials answer */
  readonly tokenB: string;
  /** the token we gave it in our credentials POST: it calls us with it */
  tokenFromUs?: string;
  /** every request it received, in order, with the time it came (epoch ms) */
  readonly requests: (QuirkyRequest & { at: number })[] = [];
  private readonly handlers: { method: string; path: RegExp; handle: Handler }[] = [];
  private readonly server: http.Server;

  constructor(
    readonly port: number,
    readonly party: PartyRef,
    /** its business_details as it writes them: nulls for the optional fields it has no value for */
    private readonly businessDetails: Record<string, unknown> = { name: "Quirky CPO", website: null, logo: null },
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.tokenB = `quirky-cpo-${party.party_id}-token-B-0123456789`;
    this.server = http.createServer((req, res) => void this.serve(req, res));
  }

  /** The versions URL to put in our gateway's config. */
  get versionsUrl(): string {
    return `${this.url}/versions`;
  }

  /** Answers `method` on a path matching `path` with `handle`; a later handler for the same request comes first. */
  on(method: string, path: RegExp, handle: Handler): void {
    this.handlers.unshift({ method, path, handle });
  }

  /** Requests it received for a path matching `path`. */
  received(method: string, path: RegExp): (QuirkyRequest & { at: number })[] {
    return this.requests.filter((r) => r.method === method && path.test(r.url.pathname));
  }

  /** POSTs `body` to one of our URLs (a response_url) with the token we gave it, as the partner does. */
  callUs(url: string, body: unknown): Promise<HttpResult> {
    if (!this.tokenFromUs) throw new Error("the quirky CPO is not registered with us");
    return ocpiRequest("POST", url, { token: this.tokenFromUs, body });
  }

  listen(): Promise<void> {
    return listenOnLoopback(this.server, this.port);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private endpoints() {
    const base = `${this.url}/${VERSION}`;
    return [
      { identifier: "credentials", role: "RECEIVER", url: `${base}/credentials` },
      { identifier: "commands", role: "RECEIVER", url: `${base}/commands` },
      { identifier: "chargingprofiles", role: "RECEIVER", url: `${base}/chargingprofiles` },
      { identifier: "locations", role: "SENDER", url: `${base}/locations` },
    ];
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let text = "";
    for await (const chunk of req) text += chunk;
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const request: QuirkyRequest = { method: req.method ?? "GET", url: new URL(req.url ?? "/", this.url), headers: req.headers, body };
    this.requests.push({ ...request, at: Date.now() });
    const reply = await this.answer(request);
    if (reply === "cut") {
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status ?? 200, { "Content-Type": "application/json", ...reply.headers });
    res.end(reply.body === undefined ? "" : JSON.stringify(reply.body));
  }

  private answer(request: QuirkyRequest): QuirkyReply | Promise<QuirkyReply> {
    const path = request.url.pathname;
    if (request.method === "GET" && path === "/versions") return { body: envelope([{ version: VERSION, url: `${this.url}/${VERSION}` }]) };
    if (request.method === "GET" && path === `/${VERSION}`) return { body: envelope({ version: VERSION, endpoints: this.endpoints() }) };
    if (request.method === "POST" && path === `/${VERSION}/credentials`) {
      this.tokenFromUs = request.body?.token;
      const roles = [{ role: "CPO", ...this.party, business_details: this.businessDetails }];
      return { body: envelope({ token: this.tokenB, url: this.versionsUrl, roles }) };
    }
    const handler = this.handlers.find((h) => h.method === request.method && h.path.test(path));
    if (handler) return handler.handle(request);
    return { status: 404, body: envelope(null, 2000, "Unknown path") };
  }
}
