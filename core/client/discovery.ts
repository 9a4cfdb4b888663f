import { Status } from "../protocol/status";
import { compareVersions, type Endpoint, type InterfaceRole, type VersionNumber } from "../protocol/types";
import { SUPPORTED_VERSIONS } from "../protocol/types";
import { OcpiError } from "../contract/errors";
import { outboundProblem } from "../partners/outbound-policy";
import { PartnerCallError, safeUrl, type OcpiClient } from "./ocpi-client";
import type { CallTarget } from "./call-target";

export interface Discovered {
  version: VersionNumber;
  detailsUrl: string;
  endpoints: Endpoint[];
  /** endpoints left out because their URL is outside the partner's outbound policy, for a warning */
  dropped: { identifier: string; role: InterfaceRole; url: string; problem: string }[];
}

export interface DiscoveryRequest {
  versionsUrl: string;
  /** the token, header style and outbound policy to use on the partner's versions endpoints */
  target: Omit<CallTarget, "url" | "version">;
  /** versions we accept with this partner, from its config */
  allowed: readonly VersionNumber[];
  /** a version forced by the credentials endpoint the partner called (server side of the handshake) */
  required?: VersionNumber;
  /** role of a 2.1.1 endpoint, which lists none: the opposite of the one we serve for that module */
  roleOf211: (module: string) => InterfaceRole;
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/**
 * Fetches a partner's versions and version details and picks the version to
 * use: the one required, or the highest both sides support. Failures are
 * the handshake's codes: 3001 unreachable, 3002 no mutual version.
 */
export const discover = async (client: OcpiClient, request: DiscoveryRequest): Promise<Discovered> => {
  const versions = await fetchData(client, request, request.versionsUrl, undefined);
  const offered = new Map<string, string>();
  for (const v of asArray(versions)) {
    const item = v as { version?: unknown; url?: unknown };
    if (typeof item.version === "string" && typeof item.url === "string") offered.set(item.version, item.url);
  }
  const mutual = SUPPORTED_VERSIONS.filter((v) => request.allowed.includes(v) && offered.has(v)).sort(compareVersions).reverse();
  const version = request.required ? mutual.find((v) => v === request.required) : mutual[0];
  if (!version) {
    const wanted = request.required ?? request.allowed.join(", ");
    throw new OcpiError(Status.UNSUPPORTED_VERSION, `No mutual version: partner offers ${[...offered.keys()].join(", ") || "none"}, we accept ${wanted}`);
  }
  const detailsUrl = offered.get(version)!;
  const details = (await fetchData(client, request, detailsUrl, version)) as { endpoints?: unknown } | undefined;
  const endpoints: Endpoint[] = [];
  const dropped: Discovered["dropped"] = [];
  for (const e of asArray(details?.endpoints)) {
    const item = e as { identifier?: unknown; role?: unknown; url?: unknown };
    if (typeof item.identifier !== "string" || typeof item.url !== "string") continue;
    const role = item.role === "SENDER" || item.role === "RECEIVER" ? item.role : request.roleOf211(item.identifier);
    // Kept endpoints are checked again on every call (OcpiClient); dropping the others here keeps them out of the store.
    const problem = outboundProblem(item.url, request.target.policy);
    if (problem) dropped.push({ identifier: item.identifier, role, url: safeUrl(item.url), problem });
    else endpoints.push({ identifier: item.identifier, role, url: item.url });
  }
  return { version, detailsUrl, endpoints, dropped };
};

const fetchData = async (client: OcpiClient, request: DiscoveryRequest, url: string, version: VersionNumber | undefined) => {
  try {
    const result = await client.call("GET", { ...request.target, url, version });
    return result.envelope.data;
  } catch (error) {
    if (error instanceof PartnerCallError) throw new OcpiError(Status.CLIENT_API_UNREACHABLE, `Unable to use the partner's API: ${error.message}`);
    throw error;
  }
};
