import type { GatewayConfig, HubServerConfig, PartnerConfig } from "../../config/types";

export const DEFAULT_HUB: HubServerConfig = { offline_after_ms: 60_000, probe_interval_ms: 30_000 };

/**
 * The gateway acts as a hub (README "Hubs and forwarding") when the operator
 * says so: `server.hub`, `server.hub_party_id`, one of our parties with role
 * HUB, or a partner with `forward` set. Only then are requests addressed to
 * partners' parties forwarded and ClientInfo published.
 */
export const isHub = (config: GatewayConfig): boolean =>
  hubByOwnSettings(config) || config.partners.some((p) => p.forward !== undefined && p.forward !== false);

/** A hub by our own settings (`server.hub`, `server.hub_party_id`, a party with role HUB), whatever the partners' `forward`. */
const hubByOwnSettings = (config: GatewayConfig): boolean =>
  config.server.hub !== undefined || config.server.hub_party_id !== undefined || config.parties.some((p) => p.role === "HUB");

export const hubSettings = (config: GatewayConfig): HubServerConfig => config.server.hub ?? DEFAULT_HUB;

/** Where a partner's requests through the hub may be forwarded: to every partner (true), none (false), or the partners named. */
export type ForwardRights = boolean | readonly string[];

/**
 * A partner's forward rights (the partner profile's `forward`, core/partners/partner-profile.ts):
 * `partners[].forward` (true, false or the receivers' ids); unset, true when the gateway is a hub by its
 * parties or `server.hub`.
 */
export const forwardRightsOf = (config: GatewayConfig, partner: PartnerConfig): ForwardRights => partner.forward ?? hubByOwnSettings(config);

/** Whether requests of partner `from` (its profile's forward rights) may be forwarded to partner `to`; never to the sender itself. */
export const mayForward = (from: { readonly id: string; readonly forward: ForwardRights }, toPartnerId: string): boolean => {
  if (from.id === toPartnerId) return false;
  return Array.isArray(from.forward) ? from.forward.includes(toPartnerId) : from.forward === true;
};
