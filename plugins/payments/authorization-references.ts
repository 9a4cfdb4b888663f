import { Lifecycle, inject, injectable, scoped } from "tsyringe";
import type { GatewayConfig } from "../../config/types";
import type { Store } from "../../core/contract/store";
import type { DataChange } from "../../core/contract/change-feed";
import type { PortContext } from "../../core/contract/port-context";
import { TOKENS } from "../../core/contract/injection-tokens";
import { ciKey, sameCiString } from "../../core/model/common-schemas";
import { sameParty, type PartyRef } from "../../core/protocol/types";
import type { Session } from "../sessions/model";
import type { SessionsReceiverPort } from "../sessions/ports";
import type { Cdr } from "../cdrs/model";
import type { CdrsReceiverPort } from "../cdrs/ports";

/** A Session or CDR the gateway holds with a given authorization_reference. */
export interface ReferenceLink {
  module: "sessions" | "cdrs";
  country_code: string;
  party_id: string;
  id: string;
}

/** authorization_reference (ciKey) → the Sessions and CDRs carrying it. */
const COLLECTION = "payments:authorization-references";

type Referenced = Pick<Session, "id" | "country_code" | "party_id" | "authorization_reference">;

/**
 * Sessions and CDRs by `authorization_reference`, the key that ties a FAC
 * to what it paid for: the PTP gave it in StartSession and the CPO copies
 * it into the Session and CDR (Part A "FinancialAdviceConfirmation";
 * OCPI 2.3.0 Payments module flow). Kept in the store as the gateway learns of them:
 * our own (change events, `follow`) and those partners push or we pull
 * (the sessions and cdrs RECEIVER ports, wrapped by their plugins), so a
 * lookup is one store read however many Sessions and CDRs there are. Only
 * a gateway serving the payments module keeps it (the others pay nothing).
 * One per gateway (its container), so the payments plugin hears what the
 * sessions and cdrs plugins record.
 */
@injectable()
@scoped(Lifecycle.ContainerScoped)
export class AuthorizationReferences {
  private readonly enabled: boolean;
  private readonly partnerLinkListeners: ((reference: string) => Promise<void>)[] = [];

  constructor(
    @inject(TOKENS.Store) private readonly store: Store,
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
  ) {
    this.enabled = config.modules.payments !== undefined;
  }

  /** Every Session and CDR held with this reference, ours and partners'. */
  async links(reference: string): Promise<ReferenceLink[]> {
    return (await this.store.get<ReferenceLink[]>(COLLECTION, ciKey(reference))) ?? [];
  }

  /** Our own parties' Sessions and CDRs with this reference: what a payment we received paid for. */
  async ours(reference: string): Promise<ReferenceLink[]> {
    return (await this.links(reference)).filter((link) => this.isOurs(link));
  }

  /** Partners' Sessions and CDRs with this reference: who a payment we captured was for. */
  async theirs(reference: string): Promise<ReferenceLink[]> {
    return (await this.links(reference)).filter((link) => !this.isOurs(link));
  }

  /** Called when a partner's Session or CDR is first recorded under a reference: a FAC withheld for want of it may now have its owner. */
  onPartnerLink(listener: (reference: string) => Promise<void>): void {
    this.partnerLinkListeners.push(listener);
  }

  /** Our own Sessions and CDRs as their changes are reported (adapter, POST /admin/v1/events). */
  follow(change: DataChange): Promise<void> | undefined {
    if ((change.module !== "sessions" && change.module !== "cdrs") || change.kind === "delete" || !change.object) return undefined;
    const object = change.object as Partial<Referenced>;
    const id = object.id ?? change.path.at(-1);
    if (!id) return undefined;
    return this.record(change.module, change.owner, { ...object, id });
  }

  /** The sessions RECEIVER port, recording the references of what it stores (pushes, PATCHes, pulls). */
  sessionsReceiver(port: SessionsReceiverPort): SessionsReceiverPort {
    if (!this.enabled) return port;
    const update = port.update;
    return {
      get: (owner, id, ctx) => port.get(owner, id, ctx),
      put: async (owner, session, ctx) => {
        const outcome = await port.put(owner, session, ctx);
        await this.record("sessions", owner, session);
        return outcome;
      },
      ...(update && {
        update: async (owner: PartyRef, id: string, change: (current: Session) => Session, ctx: PortContext) => {
          const updated = await update.call(port, owner, id, change, ctx);
          if (updated) await this.record("sessions", owner, updated);
          return updated;
        },
      }),
    };
  }

  /** The cdrs RECEIVER port, recording the references of the CDRs it stores. */
  cdrsReceiver(port: CdrsReceiverPort): CdrsReceiverPort {
    if (!this.enabled) return port;
    return {
      get: (owner, id, ctx) => port.get(owner, id, ctx),
      insert: async (owner, cdr: Cdr, ctx) => {
        const inserted = await port.insert(owner, cdr, ctx);
        if (inserted) await this.record("cdrs", owner, cdr);
        return inserted;
      },
    };
  }

  /** Adds the object under its reference (once; its owner is the party it is stored under). */
  private async record(module: ReferenceLink["module"], owner: PartyRef, object: Partial<Referenced> & { id: string }): Promise<void> {
    if (!this.enabled || !object.authorization_reference) return;
    const link: ReferenceLink = { module, country_code: owner.country_code.toUpperCase(), party_id: owner.party_id.toUpperCase(), id: object.id };
    let added = false;
    await this.store.update<ReferenceLink[]>(COLLECTION, ciKey(object.authorization_reference), (current = []) => {
      added = !current.some((l) => l.module === module && sameParty(l, link) && sameCiString(l.id, link.id));
      return added ? { value: [...current, link] } : undefined;
    });
    if (added && !this.isOurs(link)) for (const listener of this.partnerLinkListeners) await listener(object.authorization_reference);
  }

  private isOurs(link: ReferenceLink): boolean {
    return this.config.parties.some((party) => sameParty(party, link));
  }
}
