import type { PartyRef, VersionNumber } from "../protocol/types";
import type { PartyScope } from "./party-scope";

export type { PartyScope } from "./party-scope";
export { inScope } from "./party-scope";

/**
 * What an adapter port learns about the call it serves. Built from the HTTP
 * request by the kernel, or by sync and push jobs that run without one.
 */
export interface PortContext {
  /** the partner on whose behalf the call is made, when there is one */
  partnerId?: string;
  /** our party that serves the call (routing `to`, or the module's party) */
  party: PartyRef;
  /** the partner's negotiated version (adapters work on the canonical model regardless) */
  version?: VersionNumber;
  correlationId?: string;
  /**
   * set when a request named none of our parties (no to-headers, or 2.1.1) and the module serves several: when
   * they are on different adapters, a Sender list answers for all of them, one after the other
   * (core/modules/party-ports.ts); `party` is the first, which an adapter serving them all answers for
   */
  parties?: readonly PartyRef[];
  /**
   * whose objects the partner may see and act on (core/partners/party-scope.ts); set whenever the call is made
   * for a partner (its requests, pushes and resyncs to it), absent for work on our own behalf. A Sender port
   * listing Sessions or CDRs returns only those whose token owner is `inScope`.
   */
  scope?: PartyScope;
}

/** Receiver PUT answers 201 for a new object and 200 for a replaced one. */
export type PutOutcome = "created" | "updated";

export const httpStatusOf = (outcome: PutOutcome): number => (outcome === "created" ? 201 : 200);
