import type { PartyRef } from "../protocol/types";
import type { PartyScope } from "../contract/party-scope";
import { inScope } from "../contract/party-scope";
import { invalid } from "../contract/errors";
import { sameCiString } from "../model/common-schemas";

/**
 * The owner a partner names for an object it pushes or reads (the path's
 * country_code/party_id, or a posted CDR's own fields), checked once by the
 * partner isolation rule (core/partners/party-scope.ts, OCPI 2.2.1 Transport and format, Client owned object push).
 * CiString: matched case-insensitively, kept upper-case.
 */
export const ownerInScope = (scope: PartyScope, countryCode: string, partyId: string): PartyRef => {
  const owner = { country_code: countryCode.toUpperCase(), party_id: partyId.toUpperCase() };
  if (!/^[A-Z]{2}$/.test(owner.country_code)) throw invalid("path country_code must be 2 letters");
  if (!/^[A-Z0-9]{3}$/.test(owner.party_id)) throw invalid("path party_id must be 3 alphanumeric characters");
  if (!inScope(scope, owner)) throw invalid(`${owner.country_code}/${owner.party_id} is not one of the partner's parties`);
  return owner;
};

/** The owner an object names itself (a CDR POSTed to the module URL; 2.1.1 has it filled in from the partner's role), by the same rule. */
export const bodyOwnerInScope = (scope: PartyScope, body: unknown): PartyRef => {
  const { country_code, party_id } = (body ?? {}) as Record<string, unknown>;
  if (typeof country_code !== "string" || typeof party_id !== "string") throw invalid("/country_code and /party_id are required");
  return ownerInScope(scope, country_code, party_id);
};

/** The object's own country_code/party_id and id must match the URL (2001 otherwise); CiStrings compare case-insensitively. */
export const checkBodyIdentity = (
  body: Record<string, unknown>,
  owner: PartyRef,
  ids: Record<string, string | undefined>,
): void => {
  const cc = body.country_code;
  const pid = body.party_id;
  if (cc !== undefined && !sameCiString(String(cc), owner.country_code))
    throw invalid(`/country_code ${String(cc)} differs from the URL's ${owner.country_code}`);
  if (pid !== undefined && !sameCiString(String(pid), owner.party_id))
    throw invalid(`/party_id ${String(pid)} differs from the URL's ${owner.party_id}`);
  for (const [field, expected] of Object.entries(ids)) {
    if (expected === undefined) continue;
    if (body[field] !== undefined && !sameCiString(String(body[field]), expected))
      throw invalid(`/${field} ${String(body[field])} differs from the URL's ${expected}`);
  }
};
