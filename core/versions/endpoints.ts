import type { GatewayConfig, PartnerConfig } from "../../config/types";
import type { Endpoint, VersionNumber } from "../protocol/types";
import { ownRoleOf211, type ServedModule } from "../modules/served-modules";
import { absolute, modulePath } from "../http/urls";
import type { ModuleOffers } from "../partners/module-offers";

/**
 * The version-details endpoints, derived from what is actually mounted:
 * a module is listed only when a plugin serves it for this version and it is
 * offered to the partner (core/partners/module-offers.ts, the rule admission
 * applies too).
 */
export const endpointsFor = (
  served: readonly ServedModule[],
  version: VersionNumber,
  config: GatewayConfig,
  modules: ModuleOffers,
  partner?: PartnerConfig,
): Endpoint[] => {
  const visible = served.filter(
    (s) => s.versions.includes(version) && (s.plugin.configurationModule || modules.offers(partner, s.plugin.module, version)),
  );
  const endpoints = visible.map((s) => ({
    identifier: s.plugin.module,
    // configuration modules have one URL for their roles: credentials is SENDER; hubclientinfo the hub's list (SENDER), a client's receiver (RECEIVER)
    role: s.role,
    url: absolute(config.server.public_url, modulePath(version, s.plugin.module, s.role, s.plugin.configurationModule)),
  }));
  return version === "2.1.1" ? oneEndpointPerModule(endpoints, served, config) : dedupe(endpoints);
};

const oneEndpointPerModule = (endpoints: Endpoint[], served: readonly ServedModule[], config: GatewayConfig): Endpoint[] => {
  const byModule = new Map<string, Endpoint>();
  for (const e of endpoints) {
    const preferred = ownRoleOf211(served, config, e.identifier);
    const current = byModule.get(e.identifier);
    if (!current || (current.role !== preferred && e.role === preferred)) byModule.set(e.identifier, e);
  }
  return [...byModule.values()];
};

const dedupe = (endpoints: Endpoint[]): Endpoint[] => {
  const seen = new Set<string>();
  return endpoints.filter((e) => {
    const key = `${e.identifier}/${e.role}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/** 2.1.1 endpoints carry no role. */
export const wireEndpoints = (endpoints: Endpoint[], version: VersionNumber): unknown[] =>
  version === "2.1.1" ? endpoints.map(({ identifier, url }) => ({ identifier, url })) : endpoints;
