import type { PartnerConfig } from "../../config/types";

/** A partner relays for others only when the operator said so: `partners[].roles` lists HUB. Never from its credentials. */
export const isConfiguredHub = (config: PartnerConfig): boolean => (config.roles ?? []).some((r) => r.role === "HUB");
