import http, { type ClientRequest, type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import type { HeaderPrefix } from "../../config/types";
import { answerHeadersOf } from "./forward-headers";
import { keepAliveAnnounced } from "./forward-agents";

/** One request streamed to a receiver: where, with which headers, and how its answer is rewritten for the sender. */
export interface StreamPlan {
  protocol: "http:" | "https:";
  /** as node:http connects to it: an IPv6 literal without its brackets */
  hostname: string;
  port: number | undefined;
  /** path and query at the receiver */
  path: string;
  /** the request's headers, name and value in turn: the hub's (Host, token, ids, routing headers in the receiver's prefix) and the sender's content headers (REQUEST_HEADERS) */
  headers: string[];
  agent: http.Agent;
  timeoutMs: number;
  senderPrefix: HeaderPrefix;
  /** base of the rewritten Link headers: our URL of the path the sender called */
  linkBase: string;
  /** headers the sender's answer carries besides the receiver's, name and value in turn (its own request ids, when Koa has not set them) */
  own: string[];
}

/** How a streamed exchange ended before its answer began: the receiver gave none (`timedOut`: within the plan's timeout). */
export class StreamFailure extends Error {
  constructor(
    /** the request's error (a connection refused, a policy's refusal at connect time, the timeout's destroy) */
    readonly reason: unknown,
    readonly timedOut: boolean,
  ) {
    super((reason as Error)?.message ?? "forwarding failed");
  }
}

/**
 * Streams one request to a receiver and its answer back to the sender, on
 * node:http with no copy of either body: the request's `body` (the sender's
 * body held to the body limits, core/http/body-limits.ts; none for a request
 * without one) piped to the receiver, the answer piped to the sender with
 * the protocol's headers only (core/hub/forward-headers.ts). `onRequest`
 * gets the request to the receiver as soon as it exists, to break it off;
 * `onAnswer` is told when the receiver's answer begins. Settles once the sender's answer is finished or closed; rejects with a
 * StreamFailure while no answer has begun (the caller answers the sender);
 * a failure once the answer has begun closes the sender's connection.
 */
export const streamTo = (
  req: IncomingMessage,
  res: ServerResponse,
  plan: StreamPlan,
  events: { body?: Readable; onRequest?: (outgoing: ClientRequest) => void; onAnswer?: () => void } = {},
): Promise<{ answered: boolean }> =>
  new Promise((resolve, reject) => {
    let timedOut = false;
    let settled = false;
    const settle = (answered: boolean) => {
      if (!settled) (settled = true), resolve({ answered });
    };
    const transport = plan.protocol === "https:" ? https : http;
    const outgoing = transport.request(
      // the agent's timeout is the plan's (core/hub/forward-agents.ts): the connection's timer serves every request on it
      { hostname: plan.hostname, port: plan.port, method: req.method, path: plan.path, headers: plan.headers, agent: plan.agent, setHost: false, timeout: plan.timeoutMs },
      (answer) => {
        keepAliveAnnounced(answer.socket, answer.rawHeaders);
        res.writeHead(answer.statusCode ?? 502, answerHeadersOf(answer.rawHeaders, plan.senderPrefix, plan.linkBase, plan.own.slice()));
        answer.on("error", () => res.destroy());
        answer.pipe(res);
        events.onAnswer?.();
      },
    );
    events.onRequest?.(outgoing);
    outgoing.on("timeout", () => {
      timedOut = true;
      outgoing.destroy();
    });
    outgoing.on("error", (error) => {
      if (settled) return;
      if (res.headersSent) {
        res.destroy();
        settle(true);
      } else {
        settled = true;
        reject(new StreamFailure(error, timedOut));
      }
    });
    res.once("finish", () => settle(true));
    // the sender went away: so does its request to the receiver
    res.once("close", () => {
      if (!res.writableFinished) outgoing.destroy();
      settle(res.headersSent);
    });
    if (events.body) events.body.pipe(outgoing);
    else outgoing.end();
  });
