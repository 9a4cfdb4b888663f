import { ClaimTakenError, type Store } from "../contract/store";
import type { CredentialsRole, Endpoint, VersionNumber } from "../protocol/types";
import { PARTNERS, TOKEN_INDEX, newPartnerRecord, type TokenIndexEntry } from "./partner-record";
import { type PartnerRecord } from "../contract/partner-record";
import { claimTaken, heldParties } from "./role-claims";
import { generateToken, hashToken } from "./token-vault";

/** What a credentials exchange settled, to be stored as the partner's registration. */
export interface RegistrationResult {
  version: VersionNumber;
  versionsUrl: string;
  endpoints: Endpoint[];
  roles: CredentialsRole[];
  hubPartyId?: string;
  tokenToPartner: string;
}

/** A token just issued (its hash) and how long the one it replaces keeps working. */
export interface IssuedToken {
  hash: string;
  holdMs: number;
}

export const now = (): string => new Date().toISOString();

/** A record's token fields once `hash` is issued: the token it replaces is kept as the previous one for `holdMs`, if at all. */
export const rotated = (record: PartnerRecord, hash: string, holdMs: number): Pick<PartnerRecord, "issuedTokenHash" | "previousTokenHash" | "previousTokenExpiresAt"> => {
  const keep = holdMs > 0 && record.issuedTokenHash !== undefined;
  return { issuedTokenHash: hash, previousTokenHash: keep ? record.issuedTokenHash : undefined, previousTokenExpiresAt: keep ? Date.now() + holdMs : undefined };
};

/**
 * Writes a registration, with `issued` as the partner's token when given, and retires token A. The
 * partner's parties (role-claims.ts heldParties) are claimed in the same atomic write
 * (Store.updateClaiming; those it no longer lists given up), so of two partners registering one party
 * at the same moment, on any instances, exactly one wins; the other gets 2001 naming the role entry,
 * and nothing is written. Answers the record and the hash of the token `issued` replaced.
 */
export const writeRegistration = async (
  store: Store,
  id: string,
  result: RegistrationResult,
  issued?: IssuedToken,
): Promise<{ record: PartnerRecord; replaced?: string }> => {
  let replaced: string | undefined;
  let record: PartnerRecord | undefined;
  try {
    record = await store.updateClaiming<PartnerRecord>(PARTNERS, id, heldParties, (current) => {
      const base = current ?? newPartnerRecord(id);
      replaced = base.issuedTokenHash;
      const registered: PartnerRecord = {
        ...base,
        status: "registered",
        tokenAConsumed: true,
        version: result.version,
        versionsUrl: result.versionsUrl,
        endpoints: result.endpoints,
        roles: result.roles,
        hubPartyId: result.hubPartyId,
        tokenToPartner: result.tokenToPartner,
        registeredAt: current?.registeredAt ?? now(),
        updatedAt: now(),
      };
      return { value: issued ? { ...registered, ...rotated(base, issued.hash, issued.holdMs) } : registered };
    });
  } catch (error) {
    throw error instanceof ClaimTakenError ? claimTaken(result.roles, error.claim) : error;
  }
  if (record?.tokenAHash) await store.delete(TOKEN_INDEX, record.tokenAHash);
  return { record: record!, replaced: issued ? replaced : undefined };
};

/**
 * writeRegistration of credentials the partner sent us (POST or PUT) with a fresh token we answer it,
 * in the same write: a refused claim leaves no token either. The token it replaces keeps working for
 * `holdMs`. Answers the token.
 */
export const writeRegistrationIssuing = async (store: Store, id: string, result: RegistrationResult, holdMs: number): Promise<string> => {
  const token = generateToken();
  const hash = hashToken(token);
  // indexed first, void until the record holds its hash, and taken out again when the write is refused
  await store.put(TOKEN_INDEX, hash, { partnerId: id, kind: "current" } satisfies TokenIndexEntry);
  let replaced: string | undefined;
  try {
    ({ replaced } = await writeRegistration(store, id, result, { hash, holdMs }));
  } catch (error) {
    await store.delete(TOKEN_INDEX, hash);
    throw error;
  }
  await retireToken(store, id, replaced, holdMs);
  return token;
};

/** A replaced token that `holdMs` keeps working is indexed as the previous one; without, it is forgotten. */
export const retireToken = async (store: Store, id: string, replaced: string | undefined, holdMs: number): Promise<void> => {
  if (!replaced) return;
  if (holdMs > 0) await store.put(TOKEN_INDEX, replaced, { partnerId: id, kind: "previous", expiresAt: Date.now() + holdMs } satisfies TokenIndexEntry);
  else await store.delete(TOKEN_INDEX, replaced);
};

/**
 * Claims the parties of registrations stored before the store held claims, as they are, so they are
 * held like new ones. Of two such registrations sharing a party the first in id order keeps it; the
 * other keeps its registration, and its next claim of that party is refused.
 */
export const claimStoredParties = async (store: Store, records: readonly PartnerRecord[]): Promise<void> => {
  for (const record of records) {
    if (heldParties(record).length === 0) continue;
    try {
      await store.updateClaiming<PartnerRecord>(PARTNERS, record.id, heldParties, (current) => current && { value: current });
    } catch (error) {
      if (!(error instanceof ClaimTakenError)) throw error;
    }
  }
};
