import type { CredentialsRole, Endpoint, VersionNumber } from "../protocol/types";

export type RegistrationStatus = "pending" | "registered" | "unregistered";

/** What the gateway remembers of one partner across restarts (store collection `partners`). */
export interface PartnerRecord {
  id: string;
  status: RegistrationStatus;
  /** sha256 of the partnership's token A, while it may still be used */
  tokenAHash?: string;
  /** token A was used up by a successful registration */
  tokenAConsumed: boolean;
  version?: VersionNumber;
  /** the partner's versions endpoint, as it told us in its credentials */
  versionsUrl?: string;
  endpoints: Endpoint[];
  roles: CredentialsRole[];
  hubPartyId?: string;
  /** token we present to the partner; a secret, never logged */
  tokenToPartner?: string;
  /** sha256 of the token the partner presents to us */
  issuedTokenHash?: string;
  /** a rotated-out token still accepted until `previousTokenExpiresAt` (grace period) */
  previousTokenHash?: string;
  previousTokenExpiresAt?: number;
  registeredAt?: string;
  updatedAt: string;
}
