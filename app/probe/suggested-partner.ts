import { Document, Scalar, type YAMLMap, type YAMLSeq } from "yaml";
import type { PartnerConfig, TokenEncoding } from "../../config/types";
import type { VersionNumber } from "../../core/protocol/types";

/** What the probe suggests of a partner's YAML entry: fields of the config's own type, nothing it does not know. */
type SuggestedPartner = Pick<PartnerConfig, "id" | "versions_url" | "token_encoding" | "strictness"> & Partial<Pick<PartnerConfig, "versions">>;

/** What the probe found that the suggestion answers. */
export interface ProbeFindings {
  versionsUrl: string;
  version: VersionNumber | undefined;
  tokenEncoding: TokenEncoding;
  /** some of its objects are off the schema */
  invalidObjects: boolean;
  /** its lists give at most this many objects a page */
  pageCap: number | undefined;
}

/**
 * The partner YAML that copes with what the probe found: a `partners[]`
 * entry of the config's own type (PartnerConfig, the type the gateway
 * loads and checks), written as YAML with the reasons as comments.
 */
export const suggestedPartnerYaml = (found: ProbeFindings): string => {
  const entry: SuggestedPartner = {
    id: "<partner id>",
    versions_url: found.versionsUrl,
    ...(found.version ? { versions: [found.version] } : {}),
    token_encoding: found.tokenEncoding,
    strictness: found.invalidObjects ? "repair" : "reject",
  };
  const doc = new Document({ partners: [entry] });
  const partner = doc.getIn(["partners", 0]) as YAMLMap;
  const versions = partner.get("versions", true) as YAMLSeq<Scalar> | undefined;
  if (versions) {
    versions.flow = true;
    for (const item of versions.items) item.type = Scalar.QUOTE_DOUBLE;
  }
  if (found.invalidObjects)
    (partner.get("strictness", true) as Scalar).comment = " its objects are off the schema: known defects repaired, the rest still refused (log: take them as they come)";
  if (found.pageCap !== undefined) partner.comment = ` its lists give at most ${found.pageCap} objects a page (X-Limit): a sync pull follows its Link headers`;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false }).trimEnd();
};
