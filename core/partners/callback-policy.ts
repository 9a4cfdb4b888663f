import type { PartnerConfig } from "../../config/types";
import type { PartnerRecord } from "../contract/partner-record";
import { invalid } from "../contract/errors";
import { outboundPolicy, outboundProblem } from "./outbound-policy";

/**
 * A URL a partner hands us to call later (a command's or charging profile's
 * `response_url`) must be on an origin of its outbound policy
 * (core/partners/outbound-policy.ts), or the request is refused with 2001
 * and nothing is stored. Its addresses are checked when it is called.
 */
export const checkCallbackUrl = (field: string, url: string, config: PartnerConfig, record?: PartnerRecord): void => {
  const problem = outboundProblem(url, outboundPolicy(config, record?.versionsUrl), true);
  if (problem) throw invalid(`${field} ${problem}`);
};
