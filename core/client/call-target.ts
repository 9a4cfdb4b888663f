import { randomUUID } from "node:crypto";
import type { HeaderPrefix, TokenEncoding } from "../../config/types";
import type { PartyRef, VersionNumber } from "../protocol/types";
import type { OutboundPolicy } from "../contract/partner-profile";
import { encodeToken } from "../partners/token-vault";
import { routingHeaders } from "../http/routing-headers";

export interface CallTarget {
  url: string;
  /** where this partner may be called (core/partners/outbound-policy.ts); required so that no call can skip it */
  policy: OutboundPolicy;
  token: string;
  /** how to write the token; `auto` means Base64 for 2.2+ and raw for 2.1.1, retrying the other on 401 */
  encoding: "raw" | "base64" | "auto";
  version?: VersionNumber;
  headerPrefix: HeaderPrefix;
  from?: PartyRef;
  to?: PartyRef;
  correlationId?: string;
}

/** Who a call is from and for, and the correlation id it continues; routing is dropped where the version has none. */
export interface CallRouting {
  from?: PartyRef;
  to?: PartyRef;
  correlationId?: string;
}

/**
 * What a target is built from: a partner's profile (core/partners/partner-profile.ts), by the fields it
 * reads. Named here rather than imported: the profile is built with the outbox's and sync's defaults,
 * whose modules call partners through this one.
 */
export interface TargetProfile {
  readonly record: { readonly tokenToPartner?: string };
  readonly version: VersionNumber | undefined;
  readonly policy: OutboundPolicy;
  readonly tokenEncoding: TokenEncoding;
  readonly headerPrefix: HeaderPrefix;
}

/**
 * The one place a call to a partner gets its target (issue #23), from its
 * profile (core/partners/partner-profile.ts): the URL under its outbound
 * policy (core/partners/outbound-policy.ts), the token we hold for it (or,
 * during a credentials exchange, the one being exchanged) in its token
 * encoding, its version and header prefix. OCPI 2.1.1 has no routing
 * headers (OCPI 2.2.1 Transport and format, Message routing, is new in
 * 2.2), so none are sent to a 2.1.1 partner whatever the caller names.
 */
export const callTargetOf = (profile: TargetProfile, url: string, routing: CallRouting = {}, token = profile.record.tokenToPartner!): CallTarget => {
  const routed = profile.version !== "2.1.1";
  return {
    url,
    policy: profile.policy,
    token,
    encoding: profile.tokenEncoding,
    version: profile.version,
    headerPrefix: profile.headerPrefix,
    from: routed ? routing.from : undefined,
    to: routed ? routing.to : undefined,
    correlationId: routing.correlationId,
  };
};

/** The token encodings to try, in order: `auto` is Base64 for 2.2+ and raw for 2.1.1, the other tried on a 401. */
export const encodingsOf = (target: CallTarget): ("raw" | "base64")[] =>
  target.encoding !== "auto" ? [target.encoding] : target.version === "2.1.1" ? ["raw", "base64"] : ["base64", "raw"];

/** The headers every call to a partner carries: its token in `encoding`, request and correlation ids, routing headers in its prefix. */
export const callHeaders = (target: CallTarget, encoding: "raw" | "base64"): Record<string, string> => ({
  Authorization: `Token ${encodeToken(target.token, encoding)}`,
  "X-Request-ID": randomUUID(),
  "X-Correlation-ID": target.correlationId ?? randomUUID(),
  ...routingHeaders(target.headerPrefix, target.from, target.to),
});
