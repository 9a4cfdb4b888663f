import dns from "node:dns";
import type { LookupAddress, LookupOptions } from "node:dns";
import { Agent, type Dispatcher } from "undici";
import { isPublicAddress } from "../partners/outbound-policy";

/** A host name resolved to an address outside the outbound policy; the connection was never opened. */
export class OutboundAddressError extends Error {
  readonly code = "EOUTBOUNDPOLICY";
  constructor(hostname: string) {
    // The addresses stay out of the message: it can reach the partner (a 3001 to its credentials call) and would map our DNS for it.
    super(`host ${hostname} resolves to an address that is not public (see partners[].callback_hosts)`);
    this.name = "OutboundAddressError";
  }
}

export type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * The lookup of every connection to an origin the operator did not name: all
 * resolved addresses must be public, and the socket connects to exactly
 * what was checked (no second resolution a rebinding DNS could answer
 * differently). IP literals never reach a lookup; outboundProblem checks them.
 * Also the lookup of forwarded requests' node:http agents (core/hub/forward-agents.ts).
 */
export const publicOnlyLookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) return callback(new OutboundAddressError(hostname), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/**
 * Two connection pools: one for origins named in config (any address), one
 * whose every connection is checked. Keeping them apart means a connection
 * opened for a named origin is never reused for a partner that may only
 * reach public addresses there. Redirects are not followed by either (undici's
 * `request` follows none without a redirect interceptor).
 */
export class GuardedDispatchers {
  private readonly named = new Agent();
  private readonly publicOnly = new Agent({ connect: { lookup: publicOnlyLookup as never } });

  for(publicOnly: boolean): Dispatcher {
    return publicOnly ? this.publicOnly : this.named;
  }
}
