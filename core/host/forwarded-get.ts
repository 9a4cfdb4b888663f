import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { Forwarder, PreparedStream } from "../hub/forwarder";
import { OcpiError } from "../contract/errors";
import { Status } from "../protocol/status";
import { envelope } from "../http/envelope";
import { earlierIds, requestIdsOf } from "../http/request-ids";
import { requestStep, routeOfPath, servedInScope } from "../http/request-scope";
import type { ObservedRequest } from "../http/observed-request";
import { recordRequest, type RouteScope } from "./access-log";
import { JSON_CONTENT_TYPE } from "./rendered-answer";

/** Koa's request handler. */
type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** What the hub's forwarding offers this entrance (core/hub/forwarder.ts). */
export type StreamedGets = Pick<Forwarder, "prepareGet" | "prepareGetNow" | "sendGet" | "failureOf">;

/** Paths whose labels are kept (a crawl asks one list path again and again); past this they start over. */
const MAX_LABELS = 256;

/** Only paths of the versions with routing headers are forwarded; anything else goes to Koa unlooked at. */
const FORWARDED_PREFIXES = ["/ocpi/2.2.1/", "/ocpi/2.3.0/"];

/**
 * A hub's forwarded GETs answered before Koa: a GET without a body that the
 * hub streams to a receiver of the same version — decided, admitted
 * (core/edge/admit.ts) and routed by the same code as in Koa's middleware
 * (Forwarder.prepareGet), sent by the same stream (core/hub/stream-forward.ts:
 * the receiver's host policy, token, ids and routing headers; the answer's
 * headers rewritten) — without Koa's context and middleware around it. Its
 * ids, access line and metrics are the kernel's (requestIdsOf,
 * recordRequest); a receiver that gives no answer is answered with the hub
 * error Koa's error envelope would give. When all it needs is known at once
 * (Forwarder.prepareGetNow: the registration generation, token, scope,
 * route and receiver status of earlier requests, still current), nothing is
 * awaited and the request's scope is a synchronous step (requestStep), not
 * requestScope, until the receiver fails to answer.
 *
 * Anything else, and anything refused before the receiver is called (a bad
 * token or header, an unknown receiver: Koa answers the refusal), goes to
 * Koa untouched but for its ids, which it keeps (earlierIds).
 */
export class ForwardedGets {
  /** module and interface of a path, as the access log names them (routeOfPath), per path seen */
  private readonly labels = new Map<string, { module: string; interface?: string }>();

  constructor(
    private readonly gets: StreamedGets,
    private readonly log: Logger,
    private readonly modules: ReadonlySet<string>,
    private readonly observe?: (request: ObservedRequest) => void,
  ) {}

  /** Streams `req` when it is a forwarded GET that checks out, else hands it to `next` (Koa); settles when either has. */
  handle(req: IncomingMessage, res: ServerResponse, next: Handler): Promise<void> {
    const url = req.url ?? "";
    // a GET with a body goes through Koa's body limits and stream, as every body does
    if (req.method !== "GET" || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined || !FORWARDED_PREFIXES.some((p) => url.startsWith(p)))
      return next(req, res);
    const mark = url.indexOf("?");
    const path = mark < 0 ? url : url.slice(0, mark);
    const started = process.hrtime.bigint();
    const ids = requestIdsOf(req.headers);
    let labels = this.labels.get(path);
    if (!labels) {
      labels = routeOfPath(path, this.modules);
      if (this.labels.size >= MAX_LABELS) this.labels.clear();
      this.labels.set(path, labels);
    }
    const scope: RouteScope = { module: labels.module, interface: labels.interface, requestId: ids.requestId, correlationId: ids.correlationId };
    const query = mark < 0 ? "" : url.slice(mark + 1);
    // known at once (the common case on SQLite): streamed with nothing awaited, outside requestScope (requestStep)
    const now = requestStep(scope, () => this.gets.prepareGetNow(req, path, query, ids));
    if (now) return this.send(req, res, now, path, scope, started);
    return servedInScope(scope, async () => {
      const prepared = await this.gets.prepareGet(req, path, query, ids);
      if (!prepared) {
        earlierIds.set(req, ids);
        return next(req, res);
      }
      await this.send(req, res, prepared, path, scope, started);
    });
  }

  /**
   * The stream and the request's access line and figures; when the receiver
   * gave no answer, the hub error (4002, 4003), worked out in the request's
   * scope, as an envelope with the request's ids.
   */
  private send(req: IncomingMessage, res: ServerResponse, prepared: PreparedStream, path: string, scope: RouteScope, started: bigint): Promise<void> {
    // in the request's scope, so that the access line names its partner, module and ids (core/logging/logger.ts)
    const done = (answer: { httpStatus: number; statusCode?: number }) =>
      requestStep(scope, () => recordRequest(this.log, scope, { method: "GET", path, httpStatus: answer.httpStatus, statusCode: answer.statusCode }, started, this.observe));
    return this.gets.sendGet(req, res, prepared).then(
      () => done({ httpStatus: res.statusCode }),
      (error: unknown) => servedInScope(scope, async () => done(await this.refuse(res, error, prepared, path, scope))),
    );
  }

  /** The answer to a GET the receiver gave no answer to: the hub error (4002, 4003), unless the answer had begun; what the access line records. */
  private async refuse(res: ServerResponse, thrown: unknown, prepared: PreparedStream, path: string, ids: { requestId?: string; correlationId?: string }): Promise<{ httpStatus: number; statusCode?: number }> {
    const error: unknown = await this.gets.failureOf(thrown, prepared).catch((failed: unknown) => failed);
    const refusal = error instanceof OcpiError ? error : undefined;
    if (!refusal) this.log.error({ err: error, requestId: ids.requestId, path, method: "GET" }, "unexpected error");
    const [httpStatus, statusCode, message] = refusal ? [refusal.httpStatus, refusal.statusCode, refusal.message] : [500, Status.SERVER_ERROR, `Internal error; request id ${ids.requestId}`];
    if (!res.headersSent && !res.destroyed) {
      const body = JSON.stringify(envelope(undefined, statusCode, message));
      res
        .writeHead(httpStatus, { ...refusal?.headers, "X-Request-ID": ids.requestId, "X-Correlation-ID": ids.correlationId, "Content-Type": JSON_CONTENT_TYPE, "Content-Length": Buffer.byteLength(body) })
        .end(body);
    }
    return { httpStatus, statusCode };
  }
}
