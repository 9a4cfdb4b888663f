import type { Logger } from "pino";
import type { Store } from "../../core/contract/store";
import type { ChangeFeed, DataChange } from "../../core/contract/change-feed";
import type { Page, PageRequest } from "../../core/contract/page";
import { ciKey } from "../../core/model/common-schemas";
import { partyKey, type PartyRef } from "../../core/protocol/types";
import { inScope, type PartyScope } from "../../core/contract/party-scope";
import { FACS, type FinancialAdviceConfirmation } from "./model";
import type { AuthorizationReferences } from "./authorization-references";
import { paymentsChange } from "./push";

/** A FAC no single CPO party could be found for: pushed to nobody (any more), shown to no partner, listed for the operator. */
export interface WithheldFac {
  id: string;
  authorization_reference: string;
  reason: string;
  /** the CPO parties whose Sessions or CDRs carry its reference, in the order their claims came: none, or several */
  claimants: PartyRef[];
  /**
   * The CPO party it was pushed to while it was that party's alone, before another's claim made it withheld:
   * that party has it, as Part A has no way to take a FAC back. null: it was never pushed to anyone.
   */
  delivered_to: PartyRef | null;
  last_updated: string;
  /** what is published again once its owner is known: the FAC and our PTP party it came from */
  fac: FinancialAdviceConfirmation;
  owner: PartyRef;
}

/** A FAC pushed to the CPO party it belonged to: kept, so that another CPO's later claim lists it as withheld, and delivered. */
interface DeliveredFac {
  fac: FinancialAdviceConfirmation;
  owner: PartyRef;
  delivered_to: PartyRef;
}

type Attribution = { owner: PartyRef } | { reason: string; claimants: PartyRef[] };

/** FAC id → WithheldFac: the operator's list */
const WITHHELD = "payments:withheld-facs";
/** FAC id → DeliveredFac */
const DELIVERED = "payments:delivered-facs";
/** authorization_reference → the ids of the FACs pushed under it, withheld or delivered (the name predates delivered ones in it) */
const BY_REFERENCE = "payments:withheld-facs-by-reference";

const claimantsKey = (parties: readonly PartyRef[] | undefined): string | undefined => parties?.map(partyKey).join(",");

/**
 * Which CPO party a FAC of ours (we are the PTP) belongs to. Neither the
 * FAC (Part A) nor the terminal system's settlement (`auth_ref`, no device,
 * no operator) names one; what links it is its `authorization_reference`,
 * "the authorization reference the terminal used when starting the
 * session", which the CPO copies into the Session and CDR it reports to us
 * (OCPI 2.3.0 Payments, Part A, FinancialAdviceConfirmation). So a FAC
 * belongs to the CPO party whose Session or CDR we hold with that
 * reference (stored under the owner the kernel checked against the
 * pushing partner's scope, authorization-references.ts). None, or several
 * parties claiming the same reference, and the FAC is withheld: a partner
 * never sees a FAC that is not provably its own.
 *
 * That one rule (`ownerOf`) decides reads, pushes and the operator's list.
 * The list is kept where the rule's inputs change: a FAC's push
 * (`audienceOf`) and a partner's new claim on a reference (`reconsider`):
 * a withheld FAC that now has an owner is published again (pushed to it),
 * and one already delivered that another CPO now claims too is listed,
 * with the party it was delivered to.
 */
export class FacOwners {
  constructor(
    private readonly references: AuthorizationReferences,
    private readonly store: Store,
    private readonly changes: ChangeFeed,
    private readonly log: Logger,
  ) {}

  async ownerOf(fac: FinancialAdviceConfirmation): Promise<Attribution> {
    const parties = new Map<string, PartyRef>();
    for (const link of await this.references.theirs(fac.authorization_reference))
      parties.set(partyKey(link), { country_code: link.country_code, party_id: link.party_id });
    const claimants = [...parties.values()];
    if (claimants.length === 1) return { owner: claimants[0] };
    if (claimants.length === 0) return { reason: "no CPO's Session or CDR carries its authorization_reference", claimants };
    return { reason: `the Sessions or CDRs of several CPOs carry its authorization_reference (${[...parties.keys()].join(", ")})`, claimants };
  }

  async visibleTo(fac: FinancialAdviceConfirmation, scope: PartyScope): Promise<boolean> {
    const attributed = await this.ownerOf(fac);
    return "owner" in attributed && inScope(scope, attributed.owner);
  }

  /** The party a FAC's change is pushed to; undefined (pushed to nobody) when it is withheld, which is logged and kept for the operator. */
  async audienceOf(change: DataChange): Promise<PartyRef | undefined> {
    const fac = change.object as FinancialAdviceConfirmation;
    const id = ciKey(fac.id);
    // indexed first: a claim recorded from now on finds this FAC (reconsider)
    await this.store.update<string[]>(BY_REFERENCE, ciKey(fac.authorization_reference), (ids = []) => (ids.includes(id) ? undefined : { value: [...ids, id] }));
    const attributed = await this.ownerOf(fac);
    if ("owner" in attributed) {
      await this.store.put<DeliveredFac>(DELIVERED, id, { fac, owner: change.owner, delivered_to: attributed.owner });
      await this.store.delete(WITHHELD, id);
    } else await this.withhold(fac, change.owner, attributed);
    // a claim recorded between the read above and the record of its outcome was reconsidered without this FAC
    await this.reconsiderFac(id);
    return "owner" in attributed ? attributed.owner : undefined;
  }

  /** A partner's Session or CDR now claims this reference: each FAC pushed under it is attributed again. */
  async reconsider(reference: string): Promise<void> {
    for (const id of (await this.store.get<string[]>(BY_REFERENCE, ciKey(reference))) ?? []) await this.reconsiderFac(id);
  }

  /** The FACs withheld from every partner, oldest first. */
  withheld(page: Pick<PageRequest, "offset" | "limit">): Promise<Page<WithheldFac>> {
    return this.store.range<WithheldFac>(WITHHELD, { offset: page.offset, limit: page.limit });
  }

  /**
   * One FAC against the claims held now: withheld and now with an owner, it is published again (and so
   * pushed to it, leaving the list); without one, it is listed (again, when its claimants changed).
   */
  private async reconsiderFac(id: string): Promise<void> {
    const withheld = await this.store.get<WithheldFac>(WITHHELD, id);
    const known = withheld ?? (await this.store.get<DeliveredFac>(DELIVERED, id));
    if (!known) return;
    const attributed = await this.ownerOf(known.fac);
    if ("owner" in attributed) {
      if (withheld) await this.changes.publish(paymentsChange(known.owner, FACS, known.fac));
    } else if (claimantsKey(withheld?.claimants) !== claimantsKey(attributed.claimants)) await this.withhold(known.fac, known.owner, attributed);
  }

  /** Lists the FAC for the operator, with its claimants and the party it was already delivered to, if any. */
  private async withhold(fac: FinancialAdviceConfirmation, owner: PartyRef, attributed: { reason: string; claimants: PartyRef[] }): Promise<void> {
    const id = ciKey(fac.id);
    const delivered_to = (await this.store.get<DeliveredFac>(DELIVERED, id))?.delivered_to ?? null;
    if (delivered_to)
      this.log.warn({ fac: fac.id, reason: attributed.reason, delivered_to: partyKey(delivered_to) }, "FAC withheld: no single CPO party it belongs to any more; already delivered to one");
    else this.log.warn({ fac: fac.id, reason: attributed.reason }, "FAC withheld: no single CPO party it belongs to; pushed to nobody");
    const withheld: WithheldFac = { id: fac.id, authorization_reference: fac.authorization_reference, reason: attributed.reason, claimants: attributed.claimants, delivered_to, last_updated: fac.last_updated, fac, owner };
    await this.store.put(WITHHELD, id, withheld, Date.parse(fac.last_updated));
  }
}
