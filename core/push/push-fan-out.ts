import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { DataChange } from "../events/change-feed";
import type { EnqueueRequest, Outbox } from "../outbox/outbox";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { PartnerRecord } from "../partners/partner-record";
import type { LossyTranslationLog } from "../model/lossy";
import { partyKey, sameParty } from "../protocol/types";
import { defaultTarget, type PushSpec } from "./push-spec";
import { entitledPartners } from "./entitled-partners";

/** The push specs of the modules plugins serve, by module id. */
export type PushSpecs = ReadonlyMap<string, PushSpec>;

/**
 * Turns each change of our own data into one outbox message per entitled
 * partner: the body translated down to the partner's version with the
 * module's object type for the path's depth, the method and receiver path
 * from the module's push spec. Changes of data we do not own (a partner's,
 * stored by our receivers or a sync pull) are never pushed.
 */
export class PushFanOut {
  constructor(
    private readonly config: GatewayConfig,
    private readonly specs: PushSpecs,
    private readonly outbox: Outbox,
    private readonly registry: PartnerRegistry,
    private readonly lossy: LossyTranslationLog,
    private readonly log: Logger,
  ) {}

  async onChange(change: DataChange): Promise<void> {
    const spec = this.specs.get(change.module);
    if (!spec || !spec.methods[change.kind] || change.withheld) return;
    if (!this.config.parties.some((p) => sameParty(p, change.owner))) return;
    if (spec.objectTypes[change.path.length - 1] === undefined) {
      this.log.warn({ module: change.module, depth: change.path.length }, "change below the module's deepest object; not pushed");
      return;
    }
    const partners = await entitledPartners(this.registry, change.module);
    await this.outbox.enqueueAll(partners.map((partner) => this.messageFor(partner, change, spec)));
  }

  /** Queues one change for one partner (a full resync does). */
  async enqueueFor(partner: PartnerRecord, change: DataChange, spec: PushSpec): Promise<void> {
    await this.outbox.enqueue(this.messageFor(partner, change, spec));
  }

  private messageFor(partner: PartnerRecord, change: DataChange, spec: PushSpec): EnqueueRequest {
    const method = spec.methods[change.kind]!;
    const version = partner.version!;
    const type = spec.objectTypes[change.path.length - 1];
    const tx = this.lossy.context(partner.id, type.name, version, {}, change.owner);
    const body = change.kind === "delete" || !change.object ? undefined : type.down(change.object, version, tx);
    const { path, query } = spec.target?.(change, version) ?? defaultTarget(change);
    const object = `${partyKey(change.owner)}/${change.path.join("/")}`;
    const collapse = spec.collapse?.(change);
    return {
      partnerId: partner.id,
      request: { method, target: { module: change.module, role: "RECEIVER", path, query }, body, from: change.owner },
      label: `${method} ${change.module} ${object}`,
      collapseKey: collapse ? `${change.module}:${object}:${collapse}` : undefined,
      essential: spec.essential?.(change) ?? false,
    };
  }
}
