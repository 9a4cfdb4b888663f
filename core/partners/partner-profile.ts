import type { GatewayConfig, HeaderPrefix, PartnerConfig, PartnerRoleConfig, PartnerSyncRetryConfig, Strictness, TokenEncoding } from "../../config/types";
import { SUPPORTED_VERSIONS, type VersionNumber } from "../protocol/types";
import type { PartnerRecord } from "./partner-record";
import { outboundPolicy, type OutboundPolicy } from "./outbound-policy";
import { isConfiguredHub } from "./party-scope";
import { retryPolicyOf, type RetryPolicy } from "../outbox/retry-policy";
import { DEFAULT_PUSH_CONCURRENCY } from "../outbox/outbox-worker";
import { DEFAULT_SYNC_RETRY } from "../sync/page-retry";
import { forwardRightsOf, type ForwardRights } from "../hub/hub-config";

/** The YAML entry of a partner that was added with `partners add` and has none in the YAML. */
export const defaultPartnerConfig = (id: string): PartnerConfig => ({
  id,
  versions: [...SUPPORTED_VERSIONS],
  token_encoding: "auto",
  header_prefix: "OCPI",
  strictness: "reject",
  callback_hosts: [],
});

/** `partners[].sync_overlap_seconds` unless set. */
export const DEFAULT_SYNC_OVERLAP_SECONDS = 60;

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

const settingsKept = new WeakMap<PartnerConfig, { gateway: GatewayConfig; settings: PartnerSettings }>();

/** The settings of a partner's YAML entry `config` under the gateway's `gateway`: built once per loaded entry. */
export const settingsOf = (gateway: GatewayConfig, config: PartnerConfig): PartnerSettings => {
  const kept = settingsKept.get(config);
  if (kept?.gateway === gateway) return kept.settings;
  const settings: PartnerSettings = Object.freeze({
    id: config.id,
    config,
    versions: config.versions,
    modules: config.modules,
    roles: config.roles,
    hub: isConfiguredHub(config),
    tokenEncoding: config.token_encoding,
    headerPrefix: config.header_prefix,
    strictness: config.strictness,
    sendNullsForOptional: config.send_nulls_for_optional === true,
    maxPageLimit: config.max_page_limit ?? gateway.server.max_page_limit,
    forward: forwardRightsOf(gateway, config),
    pushRetry: Object.freeze(retryPolicyOf(config.push)),
    pushConcurrency: config.push?.concurrency ?? DEFAULT_PUSH_CONCURRENCY,
    syncRetry: Object.freeze({ ...DEFAULT_SYNC_RETRY, ...config.sync_retry }),
    syncOverlapMs: (config.sync_overlap_seconds ?? DEFAULT_SYNC_OVERLAP_SECONDS) * 1000,
  });
  settingsKept.set(config, { gateway, settings });
  return settings;
};

const profiles = new WeakMap<PartnerRecord, { settings: PartnerSettings; profile: PartnerProfile }>();

/** The profile of a partner's registration `record` under its YAML entry `config`: built once per frozen record. */
export const profileOf = (gateway: GatewayConfig, config: PartnerConfig, record: PartnerRecord): PartnerProfile => {
  const settings = settingsOf(gateway, config);
  const kept = profiles.get(record);
  if (kept?.settings === settings) return kept.profile;
  const profile: PartnerProfile = Object.freeze({
    ...settings,
    record,
    version: record.version,
    policy: outboundPolicy(config, record.versionsUrl),
    versionsUrl: config.versions_url ?? record.versionsUrl,
  });
  if (Object.isFrozen(record)) profiles.set(record, { settings, profile });
  return profile;
};
