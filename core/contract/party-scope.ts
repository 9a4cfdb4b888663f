import type { PartyRef } from "../protocol/types";
import { sameParty } from "../protocol/types";

/**
 * Whose objects a partner may see, write and act on: the one rule of
 * partner isolation. Computed by the kernel from the operator's config and
 * the partner's registration, never from what the partner sends on a
 * request. Every plugin and adapter asks `inScope`, nothing else.
 *
 * - A partner acts for its own parties: those it registered with, within
 *   what `partners[].roles` allows.
 * - A partner the operator configured as a hub (`partners[].roles` lists
 *   `HUB`) relays for parties reachable through it: any party that is
 *   neither ours nor one of another registered partner's ("a hub may relay
 *   others' objects, never ours").
 *
 * For Sessions, CDRs and the commands and charging profiles acting on them,
 * the party that counts is the owner of the token (`cdr_token` / `token`
 * country_code + party_id), Part B: the eMSP whose driver charges.
 */
export interface PartyScope {
  /** the partner's own parties */
  readonly parties: readonly PartyRef[];
  /** a configured hub: also any party outside `excluded` */
  readonly relay: boolean;
  /** our parties and other registered partners' parties: never reachable through a hub */
  readonly excluded: readonly PartyRef[];
}

export const inScope = (scope: PartyScope, party: PartyRef): boolean => {
  if (scope.parties.some((p) => sameParty(p, party))) return true;
  return scope.relay && !scope.excluded.some((p) => sameParty(p, party));
};

/** A scope for work the gateway does on our own behalf: nothing a partner owns. */
export const EMPTY_SCOPE: PartyScope = { parties: [], relay: false, excluded: [] };
