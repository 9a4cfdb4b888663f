import type { AdapterDeps } from "../core/plugin";
import type { PartnerRegistry } from "../core/partners/partner-registry";
import { sameParty } from "../core/protocol/types";
import type { TokensClient } from "../plugins/tokens/client";
import type { TokenType } from "../plugins/tokens/model";

/**
 * `AdapterDeps.askTokenOwner`: the registered partner whose credentials name
 * `owner` as an eMSP is asked to authorize one of its tokens, in its
 * negotiated version (TokensClient). The registry is read on every call, as
 * for requests, so a partner registered since start is found.
 */
export const tokenOwnerAuthorization =
  (registry: PartnerRegistry, tokens: TokensClient): AdapterDeps["askTokenOwner"] =>
  async (owner, token) => {
    const partner = (await registry.list()).find(
      (p) => p.status === "registered" && p.roles.some((r) => r.role === "EMSP" && sameParty(r, owner)),
    );
    if (!partner) return undefined;
    const answer = await tokens.authorize(partner.id, { uid: token.uid, type: token.type as TokenType });
    if (answer.kind !== "answered") return { kind: answer.kind };
    return { kind: "answered", allowed: String(answer.info.allowed) };
  };
