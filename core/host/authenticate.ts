import type { Context } from "koa";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerIdentity } from "../context";
import type { VersionNumber } from "../protocol/types";
import { unauthorized } from "../http/errors";
import { currentRequest } from "../http/request-scope";

/**
 * Authentication for one request: a known token, token A only where the
 * route allows bootstrap (versions, credentials), and a version the
 * partner's config accepts.
 */
export const authenticate = async (
  ctx: Context,
  registry: PartnerRegistry,
  access: "registered" | "bootstrap",
  version?: VersionNumber,
): Promise<PartnerIdentity> => {
  // 2.2+ partners send their token Base64-encoded: that reading is tried first.
  const identity = await registry.authenticate(ctx.get("Authorization") || undefined, { base64First: version !== undefined && version !== "2.1.1" });
  if (!identity) throw unauthorized();
  // the partner on every log line and metric of the request from here on (core/http/request-scope.ts)
  const scope = currentRequest();
  if (scope) scope.partner = identity.id;
  if (identity.via === "bootstrap" && access !== "bootstrap")
    throw unauthorized("Token A is only valid on the versions and credentials endpoints");
  if (version && !identity.config.versions.includes(version))
    throw unauthorized(`Version ${version} is not enabled for this partner`);
  return identity;
};
