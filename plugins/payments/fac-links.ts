import type { ModuleCatalog } from "../../core/host/module-catalog";
import type { PartyRef } from "../../core/protocol/types";
import type { Page, PageRequest } from "../../core/http/pagination";
import type { PortContext } from "../../core/ports";
import { sameCiString } from "../../core/model/common-schemas";
import type { GatewayConfig } from "../../config/types";

/** One of our Sessions or CDRs a FAC paid for. */
export interface FacLink {
  module: "sessions" | "cdrs";
  country_code: string;
  party_id: string;
  id: string;
}

interface Referenced {
  id: string;
  country_code: string;
  party_id: string;
  authorization_reference?: string;
}

interface Listing {
  list(page: PageRequest, ctx: PortContext): Promise<Page<Referenced>>;
}

const CHUNK = 500;

/**
 * A FAC's `authorization_reference` is the one the PTP gave in the
 * StartSession command (Part A "FinancialAdviceConfirmation"), which the
 * CPO copies into the Session and the CDR (ocpi-notes §3.10 flow): the
 * Sessions and CDRs of our parties carrying it are the ones the payment
 * paid for. Read through the SENDER ports of the sessions and cdrs modules
 * the gateway serves, page by page, newest included; an admin lookup costs
 * one pass over our Sessions and CDRs (a backend with an index would serve
 * it from there).
 */
export const facLinks = async (catalog: ModuleCatalog, config: GatewayConfig, authorizationReference: string): Promise<FacLink[]> => {
  const links: FacLink[] = [];
  for (const module of ["sessions", "cdrs"] as const) {
    const served = catalog.served.find((s) => s.plugin.module === module && s.role === "SENDER");
    if (!served) continue;
    const port = served.port as Listing;
    for (const party of config.parties) {
      const ctx: PortContext = { party: { country_code: party.country_code, party_id: party.party_id } };
      for (let offset = 0; ; offset += CHUNK) {
        const page = await port.list({ offset, limit: CHUNK }, ctx);
        for (const object of page.items)
          if (object.authorization_reference !== undefined && sameCiString(object.authorization_reference, authorizationReference))
            links.push({ module, country_code: object.country_code, party_id: object.party_id, id: object.id });
        if (page.items.length < CHUNK) break;
      }
    }
  }
  return links;
};

export type { PartyRef };
