import type { PartnerConfig } from "../../config/types";
import type { PartnerRecord } from "./partner-record";
import { invalid } from "../http/errors";

const hostOf = (url: string | undefined): string | undefined => {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
};

/**
 * URLs a partner hands us to call (credentials `url`, command `response_url`)
 * must be http(s) on a host it is allowed to use: the host of its versions
 * URL (configured or registered) or one of `callback_hosts`. Otherwise a
 * partner could make the gateway send requests into the operator's network.
 * A partner with neither configured is unrestricted until it registers.
 */
export const checkCallbackUrl = (field: string, url: string, config: PartnerConfig, record?: PartnerRecord): void => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(`${field} must be an absolute http(s) URL`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid(`${field} must use http or https`);
  const allowed = [hostOf(config.versions_url), hostOf(record?.versionsUrl), ...config.callback_hosts.map((h) => h.toLowerCase())].filter(
    (h): h is string => h !== undefined,
  );
  if (allowed.length > 0 && !allowed.includes(parsed.hostname.toLowerCase()))
    throw invalid(`${field} host ${parsed.hostname} is not allowed for this partner (see partners[].callback_hosts)`);
};
