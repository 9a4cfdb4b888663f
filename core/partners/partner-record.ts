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

/** Frozen all the way down: a record shared by concurrent requests cannot be changed by one of them. */
export const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
};
