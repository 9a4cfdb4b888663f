import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { DataChange } from "../contract/change-feed";
import type { EnqueueRequest } from "../outbox/outbox-message";
import type { Outbox } from "../outbox/outbox";
import type { StoreGuard } from "../contract/store";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../contract/partner-record";
import type { QueuedObject } from "../client/outbound-request";
import { partyKey, sameParty, type PartyRef } from "../protocol/types";
import { inScope, type PartyScope } from "../contract/party-scope";
import { scopeOf } from "../partners/scope-of";
import { changeObjectOf, defaultTarget, type PushSpec } from "../contract/push-spec";
import { entitledIn, entitledPartners } from "./entitled-partners";

/** The push specs of the modules plugins serve, by module id. */
export type PushSpecs = ReadonlyMap<string, PushSpec>;

/**
 * Turns each change of our own data into one outbox message per entitled
 * partner: the canonical object with its path (which names its object type
 * in the module's push spec), rendered for the partner when it is delivered
 * (core/outbox/queued-object.ts), the method and receiver path from the
 * module's push spec. Changes of data we do not own (a partner's,
 * stored by our receivers or a sync pull) are never pushed. A module that
 * names a change's audience (`PushSpec.audience`: Sessions and CDRs, their
 * token's owner) has it pushed only to partners whose scope includes it.
 */
export class PushFanOut {
  constructor(
    private readonly config: GatewayConfig,
    private readonly specs: PushSpecs,
    private readonly outbox: Outbox,
    private readonly registry: PartnerRegistry,
    private readonly log: Logger,
  ) {}

  async onChange(change: DataChange): Promise<void> {
    const spec = this.specs.get(change.module);
    if (!spec || !spec.methods[change.kind] || change.withheld) return;
    if (!this.config.parties.some((p) => sameParty(p, change.owner))) return;
    if (changeObjectOf(spec, change) === undefined) {
      this.log.warn({ module: change.module, depth: change.path.length }, "change below the module's deepest object; not pushed");
      return;
    }
    // Under the registrations listed last, the enqueue checking in the same step that their generation is
    // still the store's (one store call per change); when it moved, or nothing would be queued (nothing to
    // check it with), under a fresh read of the generation, as entitledPartners reads it.
    const last = this.registry.lastListing();
    if (last) {
      const queued = await this.queue(change, spec, entitledIn(this.registry, last.records, change.module), last.guard);
      if (queued) return;
    }
    await this.queue(change, spec, await entitledPartners(this.registry, change.module));
  }

  /** Queues the change for those of `entitled` it reaches; false when it reaches none under a guard, or the guard failed. */
  private async queue(change: DataChange, spec: PushSpec, entitled: readonly PartnerRecord[], guard?: StoreGuard): Promise<boolean> {
    if (entitled.length === 0) return !guard;
    const audience = await this.audienceOf(change, spec);
    const partners = await this.reachedBy(audience, change, entitled);
    if (partners.length === 0) return !guard;
    const messages = partners.map((partner) => this.messageFor(partner, change, spec, audience));
    return (await this.outbox.enqueueAllIf(guard, messages)) !== undefined;
  }

  /** A partner's scope as the kernel computes it for its requests: what is pushed to it is what it could read. */
  scopeOf(partner: PartnerRecord): Promise<PartyScope> {
    return scopeOf(this.config, this.registry, partner);
  }

  /** The one party a change is for (`PushSpec.audience`), "all" when it is for everyone. */
  private async audienceOf(change: DataChange, spec: PushSpec): Promise<PartyRef | "all" | undefined> {
    return spec.audience ? spec.audience(change) : "all";
  }

  /** The entitled partners a change may reach: all of them, or those whose scope includes the change's audience. */
  private async reachedBy(audience: PartyRef | "all" | undefined, change: DataChange, partners: readonly PartnerRecord[]): Promise<readonly PartnerRecord[]> {
    if (audience === "all") return partners;
    if (!audience) {
      this.log.warn({ module: change.module, path: change.path }, "change whose audience is unknown (no token owner); pushed to nobody");
      return [];
    }
    const reached: PartnerRecord[] = [];
    for (const partner of partners) if (inScope(await this.scopeOf(partner), audience)) reached.push(partner);
    return reached;
  }

  /** Queues one change for one partner (a full resync does). */
  async enqueueFor(partner: PartnerRecord, change: DataChange, spec: PushSpec): Promise<void> {
    await this.outbox.enqueue(this.messageFor(partner, change, spec, await this.audienceOf(change, spec)));
  }

  /**
   * The message to one partner, addressed to the change's audience (the token's owner of a Session or CDR,
   * reached through a hub too), or to nobody in particular when it is for everyone (core/client/addressee.ts).
   */
  private messageFor(partner: PartnerRecord, change: DataChange, spec: PushSpec, audience: PartyRef | "all" | undefined): EnqueueRequest {
    const method = spec.methods[change.kind]!;
    const { path, query } = spec.target?.(change, partner.version!) ?? defaultTarget(change);
    const object = `${partyKey(change.owner)}/${change.path.join("/")}`;
    const collapse = spec.collapse?.(change);
    // the canonical object, rendered for the partner's version and config when it is delivered (PartnerClient.send)
    const queued: QueuedObject | undefined =
      change.kind === "delete" || !change.object ? undefined : { path: change.path, value: change.object, owner: change.owner, kind: change.kind };
    return {
      partnerId: partner.id,
      request: {
        method,
        target: { module: change.module, role: "RECEIVER", path, query },
        object: queued,
        from: change.owner,
        to: audience === "all" ? undefined : audience,
      },
      label: `${method} ${change.module} ${object}`,
      collapseKey: collapse ? `${change.module}:${object}:${collapse}` : undefined,
      // the object's path: a Location's PUT and its EVSEs' PATCHes need their order, two EVSEs' do not (OutboxMessage.orderKey)
      orderKey: `${change.module}:${object}`,
      essential: spec.essential?.(change) ?? false,
    };
  }
}
