import type { AdapterDeps } from "../core/contract/adapter";
import type { GatewayConfig } from "../config/types";
import type { Store } from "../core/contract/store";
import type { PartnerRegistry } from "../core/partners/partner-registry";
import type { PartnerRecord } from "../core/contract/partner-record";
import { sameParty } from "../core/protocol/types";
import type { TokensClient } from "../plugins/tokens/client";
import type { TokenType } from "../plugins/tokens/model";
import { listsParty } from "../plugins/hubclientinfo/reachable";

/**
 * `AdapterDeps.askTokenOwner`: the registered partner acting for `owner` is asked to authorize one of its
 * tokens, in its negotiated version (TokensClient), addressed to `owner`: the eMSP whose credentials name it,
 * else a hub that lists it (hubclientinfo, or its 2.3.0 roles) and forwards the request ("via hub
 * (addressed)", OCPI 2.2.1 Transport and format, Message routing). The registry is read on every call, as for requests, so a partner
 * registered since start is found.
 */
export const tokenOwnerAuthorization =
  (config: GatewayConfig, store: Store, registry: PartnerRegistry, tokens: TokensClient): AdapterDeps["askTokenOwner"] =>
  async (owner, token) => {
    const registered = (await registry.list()).filter((p) => p.status === "registered");
    const partner =
      registered.find((p) => p.roles.some((r) => r.role === "EMSP" && sameParty(r, owner))) ??
      (await firstOf(registered, async (p) => registry.profileOf(p).hub && listsParty(config, store, registry, p, owner)));
    if (!partner) return undefined;
    const answer = await tokens.authorize(partner.id, { uid: token.uid, type: token.type as TokenType }, undefined, owner);
    if (answer.kind !== "answered") return { kind: answer.kind };
    return { kind: "answered", allowed: String(answer.info.allowed) };
  };

const firstOf = async (partners: PartnerRecord[], matches: (partner: PartnerRecord) => Promise<boolean>): Promise<PartnerRecord | undefined> => {
  for (const partner of partners) if (await matches(partner)) return partner;
  return undefined;
};
