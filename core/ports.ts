import type { PartyRef, VersionNumber } from "./protocol/types";

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
}

/** Receiver PUT answers 201 for a new object and 200 for a replaced one. */
export type PutOutcome = "created" | "updated";

export const httpStatusOf = (outcome: PutOutcome): number => (outcome === "created" ? 201 : 200);
