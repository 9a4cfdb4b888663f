import type { PartnerRecord } from "../contract/partner-record";

export const PARTNERS = "partners";
/** sha256(token) → whose token it is */
export const TOKEN_INDEX = "token-index";

export interface TokenIndexEntry {
  partnerId: string;
  kind: "token_a" | "current" | "previous";
  /** epoch ms after which the entry is void (rotated tokens) */
  expiresAt?: number;
}

export const newPartnerRecord = (id: string): PartnerRecord => ({
  id,
  status: "pending",
  tokenAConsumed: false,
  endpoints: [],
  roles: [],
  updatedAt: new Date().toISOString(),
});
