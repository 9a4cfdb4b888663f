import type { GatewayConfig, HubServerConfig } from "../../config/types";
import type { ForwardRights } from "../contract/partner-profile";
import { hubByOwnSettings } from "../partners/partner-settings";

export const DEFAULT_HUB: HubServerConfig = { offline_after_ms: 60_000, probe_interval_ms: 30_000 };

/**
 * The gateway acts as a hub (README "Hubs and forwarding") when the operator
 * says so: `server.hub`, `server.hub_party_id`, one of our parties with role
 * HUB, or a partner with `forward` set. Only then are requests addressed to
 * partners' parties forwarded and ClientInfo published.
 */
export const isHub = (config: GatewayConfig): boolean =>
  hubByOwnSettings(config) || config.partners.some((p) => p.forward !== undefined && p.forward !== false);

export const hubSettings = (config: GatewayConfig): HubServerConfig => config.server.hub ?? DEFAULT_HUB;

/** Whether requests of partner `from` (its profile's forward rights) may be forwarded to partner `to`; never to the sender itself. */
export const mayForward = (from: { readonly id: string; readonly forward: ForwardRights }, toPartnerId: string): boolean => {
  if (from.id === toPartnerId) return false;
  return Array.isArray(from.forward) ? from.forward.includes(toPartnerId) : from.forward === true;
};
