import type { GatewayConfig, HeaderPrefix, PartnerConfig, Strictness, TokenEncoding } from "../../config/types";
import type { VersionNumber } from "../protocol/types";
import type { PartnerRecord } from "./partner-record";
import { outboundPolicy, type OutboundPolicy } from "./outbound-policy";
import { isConfiguredHub } from "./party-scope";

/**
 * Everything the gateway does differently for one partner, in one immutable
 * object (issue #23): what the operator's YAML says of it (`partners[]`,
 * with the gateway's defaults applied) joined with what its registration
 * says (version, endpoints, roles, the token we hold for it). Per-partner
 * behaviour is data read from here, never `if (partner === …)`:
 *
 * - inbound, through the edge's admission (core/edge/admit.ts): versions and
 *   modules offered, page limit, strictness and repairs of what it sends;
 * - outbound, through the one call target (core/client/call-target.ts):
 *   URL policy and callback hosts, token and its encoding, version, header
 *   prefix, nulls for optional fields (and `[]` for lists);
 * - the rest of its YAML entry as loaded (`config`: push retry and
 *   concurrency, sync schedules and retries, forward rights, roles).
 *
 * Built once per registration generation: a record object is replaced
 * whenever any registration changes (core/partners/partner-registry.ts),
 * and the loaded config never changes, so a profile is kept per record.
 */
export interface PartnerProfile {
  readonly id: string;
  /** its YAML entry as loaded (defaults applied); push, sync, forward and roles are read from here */
  readonly config: Readonly<PartnerConfig>;
  /** its registration in this generation */
  readonly record: Readonly<PartnerRecord>;
  /** the version agreed at registration; absent before */
  readonly version: VersionNumber | undefined;
  readonly versions: readonly VersionNumber[];
  /** modules it may use; absent: every module served */
  readonly modules: readonly string[] | undefined;
  readonly tokenEncoding: TokenEncoding;
  readonly headerPrefix: HeaderPrefix;
  /** what an invalid object it sends becomes (core/model/tolerant-reader.ts) */
  readonly strictness: Strictness;
  /** whole objects we send it carry every optional field (null; `[]` for a list) */
  readonly sendNullsForOptional: boolean;
  /** `limit` of the lists it reads from us is capped at this */
  readonly maxPageLimit: number;
  /** where it may be called (core/partners/outbound-policy.ts) */
  readonly policy: OutboundPolicy;
  /** `partners[].roles` lists HUB: it relays others' objects */
  readonly hub: boolean;
}

const profiles = new WeakMap<PartnerRecord, PartnerProfile>();

/** The profile of a partner's registration `record` under its YAML entry `config`: built once per frozen record. */
export const profileOf = (gateway: GatewayConfig, config: PartnerConfig, record: PartnerRecord): PartnerProfile => {
  const kept = profiles.get(record);
  if (kept && kept.config === config) return kept;
  const profile: PartnerProfile = Object.freeze({
    id: record.id,
    config,
    record,
    version: record.version,
    versions: config.versions,
    modules: config.modules,
    tokenEncoding: config.token_encoding,
    headerPrefix: config.header_prefix,
    strictness: config.strictness,
    sendNullsForOptional: config.send_nulls_for_optional === true,
    maxPageLimit: config.max_page_limit ?? gateway.server.max_page_limit,
    policy: outboundPolicy(config, record.versionsUrl),
    hub: isConfiguredHub(config),
  });
  if (Object.isFrozen(record)) profiles.set(record, profile);
  return profile;
};
