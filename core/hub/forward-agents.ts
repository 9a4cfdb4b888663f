import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { publicOnlyLookup } from "../client/guarded-dispatcher";

/** How long before a receiver's announced keep-alive timeout node's Agent stops reusing a connection (its HTTP_AGENT_KEEP_ALIVE_TIMEOUT_BUFFER). */
const KEEP_ALIVE_MARGIN_MS = 1000;
const KEEP_ALIVE_TIMEOUT = /^timeout=(\d+)/;
/** The Keep-Alive header of the answer a connection carried last (keepAliveAnnounced) */
const announced = new WeakMap<Socket, string>();

/**
 * The receiver's Keep-Alive header of an answer on `socket`, from its raw headers (the stream reads only
 * those), for the agent to decide, once the exchange is done, whether the connection may be kept.
 */
export const keepAliveAnnounced = (socket: Socket, raw: readonly string[]): void => {
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i].length === 10 && raw[i].toLowerCase() === "keep-alive") {
      announced.set(socket, raw[i + 1]);
      return;
    }
  announced.delete(socket);
};

/**
 * node's Agent.keepSocketAlive (node 20), deciding from the Keep-Alive header the stream handed over
 * (keepAliveAnnounced) instead of the answer's `headers` object, which node builds from the raw headers on
 * first use: 6-8 µs of a forwarded request under the profiler for one header (bench/RESULTS.md, issue
 * #26). As node's: the connection is not kept when the receiver announced a timeout within the margin, and
 * idles under the agent's timeout, or under the announced one less the margin when that is shorter.
 */
function keepSocketAlive(this: StreamAgent | SecureStreamAgent, socket: Socket): boolean {
  socket.setKeepAlive(true, this.keepAliveMsecs);
  socket.unref();
  let timeout = this.timeoutMs;
  const seconds = KEEP_ALIVE_TIMEOUT.exec(announced.get(socket) ?? "")?.[1];
  if (seconds !== undefined) {
    const hinted = Number(seconds) * 1000 - KEEP_ALIVE_MARGIN_MS;
    if (hinted <= 0) return false;
    if (hinted < timeout) timeout = hinted;
  }
  if (socket.timeout !== timeout) socket.setTimeout(timeout);
  return true;
}

/**
 * A kept connection taken for a request: its timeout is the forward timeout again (keepSocketAlive may have
 * shortened it to the receiver's keep-alive while it idled; node's Agent sets a reused socket's timeout only
 * for a request asking another than the agent's, and every forwarded request asks the agent's).
 */
function reuseSocket(this: StreamAgent | SecureStreamAgent, socket: Socket, request: http.ClientRequest): void {
  if (socket.timeout !== this.timeoutMs) socket.setTimeout(this.timeoutMs);
  http.Agent.prototype.reuseSocket.call(this, socket, request);
}

/**
 * The agent's timeout is the forward timeout: a connection gets it when it is made and keeps it, so a
 * request (which asks the same: StreamPlan.timeoutMs) sets no timer of its own (node's Agent leaves the
 * socket's timeout alone when the request's equals the agent's). An idle kept connection is closed after it.
 */
class StreamAgent extends http.Agent {
  declare readonly keepAliveMsecs: number;
  constructor(readonly timeoutMs: number, options: http.AgentOptions) {
    super({ ...options, keepAlive: true, timeout: timeoutMs });
  }
}
class SecureStreamAgent extends https.Agent {
  declare readonly keepAliveMsecs: number;
  constructor(readonly timeoutMs: number, options: https.AgentOptions) {
    super({ ...options, keepAlive: true, timeout: timeoutMs });
  }
}
Object.assign(StreamAgent.prototype, { keepSocketAlive, reuseSocket });
Object.assign(SecureStreamAgent.prototype, { keepSocketAlive, reuseSocket });

/**
 * Node agents for streamed forwarded requests (core/hub/stream-forward.ts): origins
 * the operator named may resolve anywhere; all others only to public
 * addresses, checked at connect time. The two kinds never share a pool.
 */
export class ForwardAgents {
  private readonly agents;

  /** `timeoutMs`: the forward timeout (StreamPlan.timeoutMs), every request's */
  constructor(timeoutMs: number) {
    this.agents = {
      named: { http: new StreamAgent(timeoutMs, {}), https: new SecureStreamAgent(timeoutMs, {}) },
      publicOnly: {
        http: new StreamAgent(timeoutMs, { lookup: publicOnlyLookup as never }),
        https: new SecureStreamAgent(timeoutMs, { lookup: publicOnlyLookup as never }),
      },
    };
  }

  for(protocol: string, publicOnly: boolean): http.Agent {
    const pool = publicOnly ? this.agents.publicOnly : this.agents.named;
    return protocol === "https:" ? pool.https : pool.http;
  }

  destroy(): void {
    for (const pool of Object.values(this.agents)) for (const agent of Object.values(pool)) agent.destroy();
  }
}
