import type { HeaderPrefix, PartnerConfig, PartnerRoleConfig, PartnerSyncRetryConfig, Strictness, TokenEncoding } from "../../config/types";
import type { VersionNumber } from "../protocol/types";
import type { PartnerRecord } from "./partner-record";

/**
 * Where the gateway may send a partner's requests (README "Outbound URL
 * policy"). A partner hands us URLs to call (its versions URL, version
 * details, module endpoints, response_url, Link next) and we call them with
 * its token; without this policy it could steer those calls, token
 * included, into the operator's network.
 */
export interface OutboundPolicy {
  /** origins (`URL.origin`: scheme, host, port) the partner may be called at */
  readonly origins: ReadonlySet<string>;
  /** the origins the operator named for the partner in config: their hosts may resolve to any address, all others only to public ones */
  readonly namedOrigins: ReadonlySet<string>;
}

/** Where a partner's requests through the hub may be forwarded: to every partner (true), none (false), or the partners named. */
export type ForwardRights = boolean | readonly string[];

/** How pushes to a partner are retried (`partners[].push`, core/outbox/retry-policy.ts). */
export interface RetryPolicy {
  /** first retry delay */
  baseDelayMs: number;
  /** upper bound of the exponential delay */
  maxDelayMs: number;
  /**
   * A partner failing for longer than this gets its backlog of superseded
   * updates dropped and is marked for a full resync; essential messages
   * (CDRs, final sessions, command results) stay queued.
   */
  backlogWindowMs: number;
}

/**
 * What the operator's YAML says of one partner (`partners[]`, with the
 * gateway's defaults applied): the same under every registration, so it is
 * built once per loaded entry and may be asked for by id without a read
 * (PartnerRegistry.settingsOf) where no registration is involved: the
 * outbox worker's retry policy and concurrency (it cannot wait for a read),
 * the modules a hub forwards (from config, whoever registered), the
 * strictness an answer is read under. Everything else asks for the whole
 * profile.
 */
export interface PartnerSettings {
  readonly id: string;
  /** its YAML entry as loaded, for what only the raw entry answers (its token A, role claims, sync refusals) */
  readonly config: Readonly<PartnerConfig>;
  /** versions it may use (`partners[].versions`) */
  readonly versions: readonly VersionNumber[];
  /** modules it may use; absent: every module served */
  readonly modules: readonly string[] | undefined;
  /** roles and parties it may claim (`partners[].roles`); absent: any role but HUB, for a party nobody holds */
  readonly roles: readonly PartnerRoleConfig[] | undefined;
  /** `partners[].roles` lists HUB: it relays others' objects */
  readonly hub: boolean;
  readonly tokenEncoding: TokenEncoding;
  readonly headerPrefix: HeaderPrefix;
  /** what an invalid object it sends becomes (core/model/tolerant-reader.ts) */
  readonly strictness: Strictness;
  /** whole objects we send it carry every optional field (null; `[]` for a list) */
  readonly sendNullsForOptional: boolean;
  /** `limit` of the lists it reads from us is capped at this */
  readonly maxPageLimit: number;
  /** where its requests through the hub may be forwarded (`partners[].forward`, core/hub/hub-config.ts) */
  readonly forward: ForwardRights;
  /** backoff and backlog window of pushes to it (`partners[].push`, core/outbox/retry-policy.ts) */
  readonly pushRetry: RetryPolicy;
  /** pushes delivered to it at once (`partners[].push.concurrency`) */
  readonly pushConcurrency: number;
  /** retries of failing pages within one pull from it (`partners[].sync_retry`, core/sync/page-retry.ts) */
  readonly syncRetry: Readonly<Required<PartnerSyncRetryConfig>>;
  /** how far before the last pull's start an incremental pull from it asks from (`partners[].sync_overlap_seconds`), ms */
  readonly syncOverlapMs: number;
}

/**
 * Everything the gateway does differently for one partner, in one immutable
 * object (issue #23): its settings (what the operator's YAML says of it)
 * joined with what its registration says (version, endpoints, roles, the
 * token we hold for it). Per-partner behaviour is data read from here,
 * never `if (partner === …)`:
 *
 * - inbound, through the edge's admission (core/edge/admit.ts): versions and
 *   modules offered, page limit, strictness and repairs of what it sends;
 * - outbound, through the one call target (core/client/call-target.ts):
 *   URL policy and callback hosts, token and its encoding, version, header
 *   prefix, nulls for optional fields (and `[]` for lists), rendered when a
 *   message is delivered (core/client/partner-client.ts);
 * - pushes (retry policy, concurrency), pulls (retries, overlap), forward
 *   rights, roles and hub.
 *
 * Built once per registration generation: a record object is replaced
 * whenever any registration changes (core/partners/partner-registry.ts),
 * and the loaded config never changes, so a profile is kept per record.
 * PartnerRegistry.currentProfile and PartnerRegistry.profileOf hand them out.
 */
export interface PartnerProfile extends PartnerSettings {
  /** its registration in this generation */
  readonly record: Readonly<PartnerRecord>;
  /** the version agreed at registration; absent before */
  readonly version: VersionNumber | undefined;
  /** where it may be called (core/partners/outbound-policy.ts) */
  readonly policy: OutboundPolicy;
  /** its versions endpoint: the one the operator configured (the one the outbound policy trusts), else the one it registered with */
  readonly versionsUrl: string | undefined;
}
