import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { PartnerRecord } from "../contract/partner-record";
import type { PartnerIdentity } from "../contract/request-context";
import type { TokenIndexEntry } from "./partner-record";

/**
 * Tokens we issue are stored only as hashes. They are random 256-bit values,
 * so a fast hash is enough: there is nothing to brute-force.
 */
export const hashToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

/** 43 characters of base64url: printable ASCII, within the 64-character limit. */
export const generateToken = (): string => randomBytes(32).toString("base64url");

export const sameHash = (a: string, b: string): boolean => {
  const ba = Buffer.from(a, "hex");
  const bb = Buffer.from(b, "hex");
  return ba.length === bb.length && timingSafeEqual(ba, bb);
};

export const TOKEN_PATTERN = /^[\x21-\x7e]{1,64}$/;

export interface PresentedToken {
  value: string;
  /** how the partner wrote it in the Authorization header */
  encoding: "raw" | "base64";
}

/**
 * Candidate readings of an `Authorization: Token …` header: the raw value,
 * and its Base64 decoding when that is a plausible token. The published
 * examples encode a trailing newline (OCPI 2.2.1 Transport and format, Authorization header), so it is tolerated.
 */
export const readAuthorization = (header: string | undefined): PresentedToken[] => {
  const match = header ? /^Token\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return [];
  const raw = match[1];
  const candidates: PresentedToken[] = [];
  if (TOKEN_PATTERN.test(raw)) candidates.push({ value: raw, encoding: "raw" });
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(raw) && raw.length % 4 === 0) {
    const decoded = Buffer.from(raw, "base64").toString("utf8").replace(/\n$/, "");
    if (TOKEN_PATTERN.test(decoded)) candidates.push({ value: decoded, encoding: "base64" });
  }
  return candidates;
};

export const encodeToken = (token: string, encoding: "raw" | "base64"): string =>
  encoding === "base64" ? Buffer.from(token, "utf8").toString("base64") : token;

/** What a presented token (its hash, found in the index as `entry`) is of `record` now: its token A, its current or its previous token, or nothing any more. */
export const tokenKindOf = (record: PartnerRecord, entry: TokenIndexEntry, hash: string): PartnerIdentity["via"] | undefined => {
  switch (entry.kind) {
    case "token_a":
      return !record.tokenAConsumed && record.tokenAHash && sameHash(record.tokenAHash, hash) ? "bootstrap" : undefined;
    case "current":
      // Token B works on versions while we initiate a registration, before the partner has answered.
      if (!record.issuedTokenHash || !sameHash(record.issuedTokenHash, hash)) return undefined;
      return record.status === "registered" ? "registered" : "bootstrap";
    case "previous":
      return record.status === "registered" &&
        record.previousTokenHash &&
        sameHash(record.previousTokenHash, hash) &&
        (record.previousTokenExpiresAt ?? 0) > Date.now()
        ? "registered"
        : undefined;
  }
};
