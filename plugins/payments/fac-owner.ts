import type { Logger } from "pino";
import type { Store } from "../../core/store/port";
import type { ChangeFeed, DataChange } from "../../core/events/change-feed";
import type { Page, PageRequest } from "../../core/http/pagination";
import { ciKey } from "../../core/model/common-schemas";
import { partyKey, type PartyRef } from "../../core/protocol/types";
import { inScope, type PartyScope } from "../../core/partners/party-scope";
import { FACS, type FinancialAdviceConfirmation } from "./model";
import type { AuthorizationReferences } from "./authorization-references";
import { paymentsChange } from "./push";

/** A FAC no CPO party could be found for: pushed to nobody, shown to no partner, listed for the operator. */
export interface WithheldFac {
  id: string;
  authorization_reference: string;
  reason: string;
  last_updated: string;
  /** what is published again once its owner is known: the FAC and our PTP party it came from */
  fac: FinancialAdviceConfirmation;
  owner: PartyRef;
}

/** FAC id → WithheldFac; and authorization_reference → the ids withheld under it */
const WITHHELD = "payments:withheld-facs";
const BY_REFERENCE = "payments:withheld-facs-by-reference";

/**
 * Which CPO party a FAC of ours (we are the PTP) belongs to. Neither the
 * FAC (Part A) nor the terminal system's settlement (API.md: `auth_ref`,
 * no device, no operator) names one; what links it is its
 * `authorization_reference`, "the authorization reference the terminal
 * used when starting the session" (API.md), which the CPO copies into the
 * Session and CDR it reports to us (ocpi-notes §3.10 flow). So a FAC
 * belongs to the CPO party whose Session or CDR we hold with that
 * reference (stored under the owner the kernel checked against the
 * pushing partner's scope, authorization-references.ts). None, or several
 * parties claiming the same reference, and the FAC is withheld: a partner
 * never sees a FAC that is not provably its own. A FAC withheld for want of
 * a Session is published again when one comes (`release`).
 */
export class FacOwners {
  constructor(
    private readonly references: AuthorizationReferences,
    private readonly store: Store,
    private readonly changes: ChangeFeed,
    private readonly log: Logger,
  ) {}

  async ownerOf(fac: FinancialAdviceConfirmation): Promise<{ owner: PartyRef } | { reason: string }> {
    const parties = new Map<string, PartyRef>();
    for (const link of await this.references.theirs(fac.authorization_reference))
      parties.set(partyKey(link), { country_code: link.country_code, party_id: link.party_id });
    if (parties.size === 1) return { owner: [...parties.values()][0] };
    if (parties.size === 0) return { reason: "no CPO's Session or CDR carries its authorization_reference" };
    return { reason: `the Sessions or CDRs of several CPOs carry its authorization_reference (${[...parties.keys()].join(", ")})` };
  }

  async visibleTo(fac: FinancialAdviceConfirmation, scope: PartyScope): Promise<boolean> {
    const attributed = await this.ownerOf(fac);
    return "owner" in attributed && inScope(scope, attributed.owner);
  }

  /** The party a FAC's change is pushed to; undefined (pushed to nobody) when it is withheld, which is logged and kept for the operator. */
  async audienceOf(change: DataChange): Promise<PartyRef | undefined> {
    const fac = change.object as FinancialAdviceConfirmation;
    const attributed = await this.ownerOf(fac);
    if ("owner" in attributed) {
      await this.store.delete(WITHHELD, ciKey(fac.id));
      return attributed.owner;
    }
    this.log.warn({ fac: fac.id, reason: attributed.reason }, "FAC withheld: no single CPO party it belongs to; pushed to nobody");
    const withheld: WithheldFac = { id: fac.id, authorization_reference: fac.authorization_reference, reason: attributed.reason, last_updated: fac.last_updated, fac, owner: change.owner };
    await this.store.put(WITHHELD, ciKey(fac.id), withheld, Date.parse(fac.last_updated));
    const id = ciKey(fac.id);
    await this.store.update<string[]>(BY_REFERENCE, ciKey(fac.authorization_reference), (ids = []) => (ids.includes(id) ? undefined : { value: [...ids, id] }));
    return undefined;
  }

  /** Publishes again the FACs withheld under a reference that now have an owner (pushed to it; no longer withheld). */
  async release(reference: string): Promise<void> {
    const ids = (await this.store.get<string[]>(BY_REFERENCE, ciKey(reference))) ?? [];
    for (const id of ids) {
      const withheld = await this.store.get<WithheldFac>(WITHHELD, id);
      if (withheld && "owner" in (await this.ownerOf(withheld.fac))) await this.changes.publish(paymentsChange(withheld.owner, FACS, withheld.fac));
    }
    const still: string[] = [];
    for (const id of ids) if (await this.store.get(WITHHELD, id)) still.push(id);
    if (still.length) await this.store.put(BY_REFERENCE, ciKey(reference), still);
    else await this.store.delete(BY_REFERENCE, ciKey(reference));
  }

  /** The FACs withheld from every partner when they were pushed, oldest first. */
  withheld(page: Pick<PageRequest, "offset" | "limit">): Promise<Page<WithheldFac>> {
    return this.store.range<WithheldFac>(WITHHELD, { offset: page.offset, limit: page.limit });
  }
}
