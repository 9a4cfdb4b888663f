import type { Middleware } from "koa";
import type { GatewayConfig } from "../../config/types";
import type { ModulePlugin } from "../contract/module-plugin";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { Endpoint, VersionNumber } from "../protocol/types";
import { absolute, modulePath } from "../http/urls";
import { currentRequest } from "../http/request-scope";
import { mayForward } from "./hub-config";

/** Version details of the versions with routing headers (2.1.1 has none: nothing is forwarded there). */
const VERSION_DETAILS = /^\/ocpi\/(2\.2\.1|2\.3\.0)\/?$/;

/**
 * The hub's version details list, besides the modules it serves, every
 * functional module it forwards for the partner asking: those of a plugin
 * in that version that is offered to the partner (core/partners/module-offers.ts) and that
 * at least one partner it may reach (`partners[].forward`) may use, both
 * interfaces. From config, not from who has registered yet, so a partner
 * that registers first sees the same list as one that registers last.
 */
export const forwardedEndpoints = (
  config: GatewayConfig,
  registry: PartnerRegistry,
  plugins: readonly ModulePlugin[],
  version: VersionNumber,
  partnerId: string,
  partnerIds: readonly string[],
): Endpoint[] => {
  // what the YAML says, whoever has registered: the settings half of each profile
  const partner = registry.settingsOf(partnerId);
  const reachable = partnerIds.filter((id) => mayForward(partner, id)).map((id) => registry.settingsOf(id));
  return plugins
    .filter((p) => !p.configurationModule && p.versions.includes(version) && registry.modules.offers(partner.config, p.module, version))
    // the other partner's version is its own: only its `partners[].modules` is asked
    .filter((p) => reachable.some((other) => registry.modules.offers(other.config, p.module, undefined)))
    .flatMap((p) => p.roles.map((role) => ({ identifier: p.module, role, url: absolute(config.server.public_url, modulePath(version, p.module, role)) })));
};

/** Adds the forwarded modules to the version details the router answered (core/versions), after the ones it lists. */
export const withForwardedEndpoints =
  (config: GatewayConfig, registry: PartnerRegistry, plugins: readonly ModulePlugin[]): Middleware =>
  async (ctx, next) => {
    const version = ctx.method === "GET" ? VERSION_DETAILS.exec(ctx.path)?.[1] : undefined;
    await next();
    const partnerId = currentRequest()?.partner;
    const body = ctx.body as { status_code?: number; data?: { endpoints?: Endpoint[] } } | undefined;
    if (!version || !partnerId || body?.status_code !== 1000 || !Array.isArray(body.data?.endpoints)) return;
    const ids = new Set([...config.partners.map((p) => p.id), ...(await registry.list()).map((r) => r.id)]);
    const listed = body.data.endpoints;
    for (const endpoint of forwardedEndpoints(config, registry, plugins, version as VersionNumber, partnerId, [...ids]))
      if (!listed.some((e) => e.identifier === endpoint.identifier && e.role === endpoint.role)) listed.push(endpoint);
  };
