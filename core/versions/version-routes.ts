import Router from "@koa/router";
import type { Context } from "koa";
import type { GatewayConfig } from "../../config/types";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { ServedModule } from "../modules/served-modules";
import { SUPPORTED_VERSIONS, type VersionNumber } from "../protocol/types";
import { envelope } from "../http/envelope";
import { notFound } from "../contract/errors";
import { admit } from "../edge/admit";
import { absolute, versionDetailsPath, versionsPath } from "../http/urls";
import { endpointsFor, wireEndpoints } from "./endpoints";

/** GET versions and GET version details, both open to token A (registration needs them). */
export const versionRoutes = (router: Router, served: readonly ServedModule[], config: GatewayConfig, registry: PartnerRegistry): void => {
  const admitted = async (ctx: Context) =>
    (await admit({ config, registry }, { authorization: ctx.get("Authorization"), headers: ctx.headers, access: "bootstrap" })).partner;
  router.get(versionsPath(), async (ctx) => {
    const partner = await admitted(ctx);
    const versions = SUPPORTED_VERSIONS.filter((v) => partner.config.versions.includes(v));
    ctx.body = envelope(versions.map((version) => ({ version, url: absolute(config.server.public_url, versionDetailsPath(version)) })));
  });
  for (const version of SUPPORTED_VERSIONS) {
    router.get(versionDetailsPath(version as VersionNumber), async (ctx) => {
      const partner = await admitted(ctx);
      if (!partner.config.versions.includes(version)) throw notFound(`Version ${version}`);
      const endpoints = endpointsFor(served, version, config, registry.modules, partner.config);
      ctx.body = envelope({ version, endpoints: wireEndpoints(endpoints, version) });
    });
  }
};
