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
 * (keepAliveAnnounced) instead of the answer's `headers`, which node builds from the raw headers on first
 * use: about 6 µs a forwarded request under the profiler for one header (bench/RESULTS.md, issue #26). As
 * node's with no agent timeout: the connection is kept unless the receiver announced a timeout within the
 * margin, and idles with no timeout of its own.
 */
function keepSocketAlive(this: http.Agent & { keepAliveMsecs: number }, socket: Socket): boolean {
  socket.setKeepAlive(true, this.keepAliveMsecs);
  socket.unref();
  const seconds = KEEP_ALIVE_TIMEOUT.exec(announced.get(socket) ?? "")?.[1];
  if (seconds !== undefined && Number(seconds) * 1000 - KEEP_ALIVE_MARGIN_MS <= 0) return false;
  if (socket.timeout !== 0) socket.setTimeout(0);
  return true;
}

class StreamAgent extends http.Agent {}
class SecureStreamAgent extends https.Agent {}
Object.assign(StreamAgent.prototype, { keepSocketAlive });
Object.assign(SecureStreamAgent.prototype, { keepSocketAlive });

/**
 * Node agents for streamed forwarded requests (core/hub/stream-forward.ts): origins
 * the operator named may resolve anywhere; all others only to public
 * addresses, checked at connect time. The two kinds never share a pool.
 */
export class ForwardAgents {
  private readonly agents = {
    named: { http: new StreamAgent({ keepAlive: true }), https: new SecureStreamAgent({ keepAlive: true }) },
    publicOnly: {
      http: new StreamAgent({ keepAlive: true, lookup: publicOnlyLookup as never }),
      https: new SecureStreamAgent({ keepAlive: true, lookup: publicOnlyLookup as never }),
    },
  };

  for(protocol: string, publicOnly: boolean): http.Agent {
    const pool = publicOnly ? this.agents.publicOnly : this.agents.named;
    return protocol === "https:" ? pool.https : pool.http;
  }

  destroy(): void {
    for (const pool of Object.values(this.agents)) for (const agent of Object.values(pool)) agent.destroy();
  }
}
