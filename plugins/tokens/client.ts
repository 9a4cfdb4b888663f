import type { ListFilters, PartnerClient } from "../../core/client/partner-client";
import { PartnerCallError } from "../../core/client/ocpi-client";
import type { LossyTranslationLog } from "../../core/model/lossy";
import { silentTranslation } from "../../core/model/object-type";
import { Status } from "../../core/protocol/status";
import type { PartyRef, VersionNumber } from "../../core/protocol/types";
import type { LocationReferences, Token, TokenRef, TokenType } from "./model";
import { authorizationInfoObjectType, locationReferencesObjectType, tokenObjectType, type ReceivedAuthorizationInfo } from "./translate";

/** What a partner eMSP answered to a real-time authorization. */
export type PartnerAuthorizeResult =
  | { kind: "answered"; info: ReceivedAuthorizationInfo }
  | { kind: "unknown_token" }
  | { kind: "location_required"; message: string };

/**
 * Outbound calls of the tokens module in the partner's negotiated version:
 * pulling an eMSP's tokens, pushing ours to a CPO, asking an eMSP to
 * authorize. Translation and pagination are PartnerClient's.
 */
export class TokensClient {
  constructor(
    private readonly partners: PartnerClient,
    private readonly lossy?: LossyTranslationLog,
  ) {}

  /** The partner eMSP's tokens, page by page; invalid ones go to onInvalid. */
  list(partnerId: string, filters: ListFilters = {}, onInvalid?: (object: unknown, problems: string) => void): AsyncGenerator<Token[]> {
    return this.partners.list(partnerId, "tokens", tokenObjectType, filters, onInvalid);
  }

  /** One of our tokens as the partner CPO stores it; undefined when it has none. */
  async get(partnerId: string, owner: PartyRef, ref: TokenRef): Promise<Token | undefined> {
    const query = { type: await this.receiverType(partnerId, ref.type) };
    return this.partners.get(partnerId, { module: "tokens", role: "RECEIVER", path: receiverPath(owner, ref.uid), query, owner }, tokenObjectType);
  }

  async put(partnerId: string, token: Token): Promise<void> {
    await this.partners.call(partnerId, {
      module: "tokens",
      role: "RECEIVER",
      method: "PUT",
      path: receiverPath(token, token.uid),
      query: { type: await this.receiverType(partnerId, token.type) },
      body: { type: tokenObjectType, value: token },
      from: { country_code: token.country_code, party_id: token.party_id },
    });
  }

  /** `fragment` must carry last_updated (2.2+). */
  async patch(partnerId: string, owner: PartyRef, ref: TokenRef, fragment: Partial<Token>): Promise<void> {
    await this.partners.call(partnerId, {
      module: "tokens",
      role: "RECEIVER",
      method: "PATCH",
      path: receiverPath(owner, ref.uid),
      query: { type: await this.receiverType(partnerId, ref.type) },
      body: { type: tokenObjectType, value: fragment },
      from: owner,
    });
  }

  /** `owner`: the token's owner, the party the request is for (a partner eMSP behind a hub). */
  async authorize(partnerId: string, ref: TokenRef, location?: LocationReferences, owner?: PartyRef): Promise<PartnerAuthorizeResult> {
    const { record } = await this.partners.endpoint(partnerId, "tokens", "SENDER");
    const version = record.version!;
    try {
      const result = await this.partners.call(partnerId, {
        module: "tokens",
        role: "SENDER",
        method: "POST",
        path: `/${encodeURIComponent(ref.uid)}/authorize`,
        query: { type: wireTokenType(ref.type, version) },
        body: location ? { type: locationReferencesObjectType, value: location } : undefined,
        to: owner,
      });
      const tx = this.lossy?.context(partnerId, authorizationInfoObjectType.name, version, {}) ?? silentTranslation();
      return { kind: "answered", info: authorizationInfoObjectType.up(result.envelope.data, version, tx) };
    } catch (error) {
      if (!(error instanceof PartnerCallError)) throw error;
      if (error.httpStatus === 404) return { kind: "unknown_token" };
      if (error.statusCode === Status.NOT_ENOUGH_INFORMATION) return { kind: "location_required", message: error.message };
      throw error;
    }
  }

  /** `?type=` of receiver paths: the partner version's TokenType (as the body is translated), none in 2.1.1, whose receiver URLs carry no type. */
  private async receiverType(partnerId: string, type: TokenType): Promise<string | undefined> {
    const version = (await this.partners.endpoint(partnerId, "tokens", "RECEIVER")).record.version!;
    return version === "2.1.1" ? undefined : wireTokenType(type, version);
  }
}

/** A TokenType as a version knows it (2.3.0-only values become OTHER, as in the translated body); the loss is logged with the body. */
const wireTokenType = (type: TokenType, version: VersionNumber): string =>
  (tokenObjectType.down({ type } as Token, version, silentTranslation()) as Token).type;

const receiverPath = (owner: PartyRef, uid: string): string =>
  `/${encodeURIComponent(owner.country_code)}/${encodeURIComponent(owner.party_id)}/${encodeURIComponent(uid)}`;
