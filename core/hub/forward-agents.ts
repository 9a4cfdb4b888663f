import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupAddress, LookupOptions } from "node:dns";
import { isPublicAddress } from "../partners/outbound-policy";
import { OutboundAddressError } from "../client/guarded-dispatcher";

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** As core/client/guarded-dispatcher.ts: every resolved address must be public, and the socket connects to what was checked. */
const publicOnlyLookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) return callback(new OutboundAddressError(hostname), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/**
 * Node agents for forwarded requests (http-proxy speaks node:http): origins
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

  for(url: URL, publicOnly: boolean): http.Agent {
    const pool = publicOnly ? this.agents.publicOnly : this.agents.named;
    return url.protocol === "https:" ? pool.https : pool.http;
  }

  destroy(): void {
    for (const pool of Object.values(this.agents)) for (const agent of Object.values(pool)) agent.destroy();
  }
}
