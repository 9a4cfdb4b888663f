import type { GatewayConfig, PartnerConfig } from "../../config/types";
import type { PartnerRecord } from "../contract/partner-record";
import type { PartnerProfile, PartnerSettings } from "../contract/partner-profile";
import { outboundPolicy } from "./outbound-policy";
import { isConfiguredHub } from "./configured-hub";
import { DEFAULT_PUSH_CONCURRENCY, DEFAULT_SYNC_OVERLAP_SECONDS, DEFAULT_SYNC_RETRY, forwardRightsOf, retryPolicyOf } from "./partner-settings";


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
