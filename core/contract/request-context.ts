import type { Logger } from "pino";
import type { InterfaceRole, ModuleId, PartyRef, VersionNumber } from "../protocol/types";
import type { PartnerConfig, PartyConfig } from "../../config/types";
import type { PartnerRecord } from "./partner-record";
import type { PartnerProfile } from "./partner-profile";

/** The authenticated partner behind a request. */
export interface PartnerIdentity {
  id: string;
  config: PartnerConfig;
  record: PartnerRecord;
  /** `bootstrap`: token A, or a token issued while the registration is still under way */
  via: "bootstrap" | "registered";
  /** the token value presented on this request; a secret, never logged */
  token: string;
}

/**
 * Everything a plugin may know about the request it serves, derived once by
 * the kernel's middleware: ids, version, the authenticated partner and the
 * routing headers. Plugins never read headers themselves.
 */
export interface RequestContext {
  requestId: string;
  correlationId: string;
  version: VersionNumber;
  module: ModuleId;
  role: InterfaceRole;
  partner: PartnerIdentity;
  /** what the gateway does differently for this partner (core/partners/partner-profile.ts), from the admission */
  profile: PartnerProfile;
  /** sender party from routing headers (absent for 2.1.1 and configuration modules) */
  from?: PartyRef;
  /** addressed party from routing headers */
  to?: PartyRef;
  /** our party that serves this request (routing `to`, or the only party serving the module) */
  party: PartyConfig;
  log: Logger;
}
