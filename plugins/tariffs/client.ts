import type { ListFilters, PartnerClient } from "../../core/client/partner-client";
import type { PartyRef } from "../../core/protocol/types";
import type { Tariff } from "./model";
import { tariffType } from "./translate";

/**
 * Outbound calls of the tariffs module in the partner's negotiated version:
 * pulling a CPO's tariffs, pushing ours to an eMSP (PUT/DELETE).
 * Translation and pagination are PartnerClient's.
 */
export class TariffsClient {
  constructor(private readonly partners: PartnerClient) {}

  /** The partner CPO's tariffs, page by page; invalid ones go to onInvalid. */
  list(partnerId: string, filters: ListFilters = {}, onInvalid?: (object: unknown, problems: string) => void): AsyncGenerator<Tariff[]> {
    return this.partners.list(partnerId, "tariffs", tariffType, filters, onInvalid);
  }

  /** One of our tariffs as the partner eMSP stores it; undefined when it has none. */
  get(partnerId: string, owner: PartyRef, id: string): Promise<Tariff | undefined> {
    return this.partners.get(partnerId, { module: "tariffs", role: "RECEIVER", path: receiverPath(owner, id), owner }, tariffType);
  }

  async put(partnerId: string, tariff: Tariff): Promise<void> {
    await this.partners.call(partnerId, {
      module: "tariffs",
      role: "RECEIVER",
      method: "PUT",
      path: receiverPath(tariff, tariff.id),
      body: { type: tariffType, value: tariff },
      from: { country_code: tariff.country_code, party_id: tariff.party_id },
    });
  }

  /** For a tariff no longer used by any connector (the spec's recommendation). */
  async delete(partnerId: string, owner: PartyRef, id: string): Promise<void> {
    await this.partners.call(partnerId, { module: "tariffs", role: "RECEIVER", method: "DELETE", path: receiverPath(owner, id), from: owner });
  }
}

const receiverPath = (owner: PartyRef, id: string): string =>
  `/${encodeURIComponent(owner.country_code)}/${encodeURIComponent(owner.party_id)}/${encodeURIComponent(id)}`;
