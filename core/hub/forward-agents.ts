import http from "node:http";
import https from "node:https";
import { publicOnlyLookup } from "../client/guarded-dispatcher";

/**
 * Node agents for streamed forwarded requests (core/hub/stream-forward.ts): origins
 * the operator named may resolve anywhere; all others only to public
 * addresses, checked at connect time. The two kinds never share a pool.
 */
export class ForwardAgents {
  private readonly agents = {
    named: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
    publicOnly: {
      http: new http.Agent({ keepAlive: true, lookup: publicOnlyLookup as never }),
      https: new https.Agent({ keepAlive: true, lookup: publicOnlyLookup as never }),
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
