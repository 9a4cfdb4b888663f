import type { ListFilters, PartnerClient } from "../../core/client/partner-client";
import type { Cdr } from "./model";
import { cdrType } from "./translate";

/**
 * Outbound CDR calls to a registered partner, in its negotiated version
 * (translation by PartnerClient): pull a CPO's CDRs, push a CDR to an eMSP.
 */
export class CdrsClient {
  constructor(private readonly partners: PartnerClient) {}

  /** Pages of the partner's CDRs (its Sender interface), following Link headers. */
  list(partnerId: string, filters: ListFilters = {}, onInvalid?: (object: unknown, problems: string) => void): AsyncGenerator<Cdr[]> {
    return this.partners.list<Cdr>(partnerId, "cdrs", cdrType, filters, onInvalid);
  }

  /** POSTs a CDR to the partner's Receiver interface; resolves to the URL its Location header names, when it sent one. */
  async post(partnerId: string, cdr: Cdr, correlationId?: string): Promise<string | undefined> {
    const result = await this.partners.call(partnerId, {
      module: "cdrs",
      role: "RECEIVER",
      method: "POST",
      body: { type: cdrType, value: cdr },
      from: { country_code: cdr.country_code, party_id: cdr.party_id },
      correlationId,
    });
    return result.headers.get("location") ?? undefined;
  }

  /**
   * GETs a CDR back from the partner's Receiver interface, by the path
   * below its cdrs endpoint (the Location URL's tail); undefined on 404.
   */
  async get(partnerId: string, pathBelowEndpoint: string): Promise<Cdr | undefined> {
    return this.partners.get(partnerId, { module: "cdrs", role: "RECEIVER", path: pathBelowEndpoint }, cdrType);
  }

  /** The part of a Location URL below the partner's cdrs RECEIVER endpoint, or undefined when it lies elsewhere. */
  async pathOf(partnerId: string, locationUrl: string): Promise<string | undefined> {
    const { url } = await this.partners.endpoint(partnerId, "cdrs", "RECEIVER");
    return locationUrl.startsWith(url) ? locationUrl.slice(url.length) : undefined;
  }
}
