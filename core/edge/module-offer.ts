import type { PartnerConfig, PartnerExtension } from "../../config/types";
import type { VersionNumber } from "../protocol/types";

/**
 * Modules a version has only through an extension of it: offered to a
 * partner in that version only when `partners[].extensions` names the
 * extension. The payments module is OCPI 2.3.0's (Payments module, Part A);
 * in 2.2.1 it exists only for partners on the direct-payment extension, so a
 * plain 2.2.1 partner is not offered it.
 */
const BY_EXTENSION: readonly { module: string; version: VersionNumber; extension: PartnerExtension }[] = [
  { module: "payments", version: "2.2.1", extension: "direct_payment" },
];

/**
 * Whether `module` is offered to `partner` in `version`: allowed by
 * `partners[].modules` (absent: every module), and, where the version has the
 * module only through an extension, the partner configured for it. The one
 * rule of both the version details we list (core/versions/endpoints.ts) and
 * the requests we admit (core/edge/admit.ts: else 404), so a partner never
 * sees an endpoint it cannot use nor uses one it was not shown.
 * Configuration modules (versions, credentials) are offered to every partner
 * and are not asked about here.
 */
export const offersModule = (
  partner: Pick<PartnerConfig, "modules" | "extensions"> | undefined,
  module: string,
  version: VersionNumber | undefined,
): boolean => {
  if (partner?.modules && !partner.modules.includes(module)) return false;
  const needs = BY_EXTENSION.find((e) => e.module === module && e.version === version);
  return !needs || (partner?.extensions?.includes(needs.extension) ?? false);
};
