import { inScope, type PartyScope } from "../../core/contract/port-context";
import type { PartyRef } from "../../core/protocol/types";

/** A Session or CDR: 2.1.1 CDRs may lack the token's owner (plugins/cdrs/model.ts). */
interface TokenOwned {
  cdr_token: { country_code?: string; party_id?: string };
}

/**
 * A CPO's Sessions and CDRs, and the commands and charging profiles acting
 * on them, belong to the owner of the token (`cdr_token` / `token`
 * country_code + party_id, Part B): the eMSP whose driver charges.
 */
export const tokenOwnerOf = ({ cdr_token: { country_code, party_id } }: TokenOwned): PartyRef | undefined =>
  country_code && party_id ? { country_code, party_id } : undefined;

/**
 * Whether a partner with `scope` may see and act on a Session or CDR (core/partners/party-scope.ts). A CDR
 * whose token names no owner (one that came in 2.1.1) is nobody's to see.
 */
export const tokenOwnerInScope = (scope: PartyScope, object: TokenOwned): boolean => {
  const owner = tokenOwnerOf(object);
  return owner !== undefined && inScope(scope, owner);
};
