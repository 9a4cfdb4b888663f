import type { Logger } from "pino";
import type { Store } from "../contract/store";
import type { Outbox } from "../outbox/outbox";
import type { OutboxMessage } from "../outbox/outbox-message";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { ServedModule } from "../modules/served-modules";
import type { ListingPort, PushSpec } from "../contract/push-spec";
import type { PageRequest } from "../contract/page";
import type { PortContext } from "../contract/port-context";
import type { PushFanOut } from "./push-fan-out";
import { isEntitled } from "./entitled-partners";

/** A partner whose backlog was dropped: it gets every object again once it answers. */
export interface ResyncFlag {
  partnerId: string;
  /** when the backlog was dropped */
  since: string;
  /** the queued probe whose delivery starts the resync (absent for a moment while it is queued) */
  probeId?: string;
}

const FLAGS = "push:resync";
export const RESYNC_PROBE = "resync-probe";
const PAGE = 100;

/**
 * The full resync after a partner was unreachable beyond its backlog
 * window. Marking queues a probe (GET of the partner's versions endpoint)
 * behind the essential messages that were kept; the outbox retries it with
 * the partner's backoff. Its delivery proves the partner is back: then the
 * current state of every object of every module it is entitled to is read
 * page by page through our SENDER ports, with the partner's scope (so it gets
 * only Sessions of its own tokens, as its requests would), and queued as PUTs. The flag lives
 * in the store, so a restart resumes a resync that had not finished.
 */
export class PushResync {
  constructor(
    private readonly store: Store,
    private readonly outbox: Outbox,
    private readonly registry: PartnerRegistry,
    private readonly fanOut: PushFanOut,
    private readonly senders: () => readonly ServedModule[],
    private readonly log: Logger,
  ) {}

  /** Marks the partner for a resync unless it is already waiting for one (instances racing to mark it queue one probe). */
  async mark(partnerId: string): Promise<void> {
    const since = new Date().toISOString();
    if (!(await this.store.putIfAbsent<ResyncFlag>(FLAGS, partnerId, { partnerId, since }))) return;
    await this.queueProbe(partnerId, since);
  }

  /** On start: a flagged partner whose probe is gone (the resync was cut short) gets a new one. */
  async resume(): Promise<void> {
    for (const flag of await this.flags())
      if (!flag.probeId || !(await this.outbox.get(flag.partnerId, flag.probeId))) await this.queueProbe(flag.partnerId, flag.since);
  }

  async flags(): Promise<ResyncFlag[]> {
    return (await this.store.range<ResyncFlag>(FLAGS, { offset: 0, limit: 100_000 })).items;
  }

  /** The outbox took a message off a queue: a probe means the partner answers again. */
  async onSettled(message: OutboxMessage): Promise<void> {
    if (message.tag !== RESYNC_PROBE) return;
    await this.run(message.partnerId);
    await this.store.delete(FLAGS, message.partnerId);
  }

  private async queueProbe(partnerId: string, since: string): Promise<void> {
    const record = await this.registry.get(partnerId);
    // The versions URL the operator configured is the one the outbound policy trusts; the partner's declared one otherwise.
    const versionsUrl = record?.versionsUrl && this.registry.profileOf(record).versionsUrl;
    if (!versionsUrl) {
      // no longer registered: there is nothing to resync with
      await this.store.delete(FLAGS, partnerId);
      return;
    }
    const probeId = await this.outbox.enqueue({
      partnerId,
      request: { method: "GET", target: { url: versionsUrl } },
      label: "GET versions (resync probe)",
      essential: true,
      tag: RESYNC_PROBE,
    });
    await this.store.put<ResyncFlag>(FLAGS, partnerId, { partnerId, since, probeId });
  }

  private async run(partnerId: string): Promise<void> {
    const record = await this.registry.get(partnerId);
    if (!record) return;
    let queued = 0;
    const scope = await this.fanOut.scopeOf(record);
    for (const served of this.senders()) {
      const spec = served.plugin.pushSpec as PushSpec;
      const module = served.plugin.module;
      if (!isEntitled(this.registry, record, module)) continue;
      const port = served.port as ListingPort;
      const read = (page: PageRequest, ctx: PortContext) => (spec.resyncPage ? spec.resyncPage(port, page, ctx) : port.list(page, ctx));
      for (const party of served.parties) {
        const ctx = { party: { country_code: party.country_code, party_id: party.party_id }, partnerId, scope };
        for (let offset = 0; ; offset += PAGE) {
          const page = await read({ offset, limit: PAGE }, ctx);
          for (const item of page.items) {
            const object = item as Record<string, unknown>;
            const id = String(object[spec.idFields[0]]);
            await this.fanOut.enqueueFor(record, { module, owner: ctx.party, path: [id], kind: "upsert", object }, spec);
            queued++;
          }
          if (page.items.length < PAGE) break;
        }
      }
    }
    this.log.warn({ partner: partnerId, queued }, "partner reachable again: full resync queued");
  }
}
