import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const digest = (value: string): Buffer => createHash("sha256").update(value).digest();

/** Whether an `Authorization` header carries `Bearer <token>`, compared in constant time. */
export const bearerMatches = (header: string | undefined, token: string): boolean => {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match !== null && timingSafeEqual(digest(match[1]), digest(token));
};

/**
 * The status page's session cookie for an admin token: an HMAC of a fixed
 * text under the token, so it is the same on every instance, dies with the
 * token, and is not the token (it opens the status page, not the admin API).
 */
export const statusCookieValue = (token: string): string => createHmac("sha256", token).update("ocpi-gateway status page").digest("base64url");

/** Whether a cookie value is the status page's cookie for `token`, in constant time. */
export const statusCookieMatches = (value: string | undefined, token: string): boolean =>
  value !== undefined && timingSafeEqual(digest(value), digest(statusCookieValue(token)));
