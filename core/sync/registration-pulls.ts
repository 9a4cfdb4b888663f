import type { Logger } from "pino";
import type { PartnerRecord } from "../contract/partner-record";
import type { PartnerRegistry } from "../partners/partner-registry";
import type { SyncTarget } from "./sync-targets";
import type { SyncStates } from "./sync-state";
import { storeUnavailableIn } from "../contract/store-unavailable";
import { SyncBusyError, type SyncPuller } from "./sync-puller";

/** How often registrations are looked at: one read of the registration generation, the records only when it moved. */
const LOOK_EVERY_MS = 1000;
/** A registration pull that failed is tried again after this long (a schedule's ticks, if any, try too). */
const RETRY_AFTER_MS = 30_000;

/**
 * The pulls of modules whose sync spec asks for one at registration (SyncSpec.atRegistration): a partner
 * it may be pulled from, registered and offering the module's SENDER interface, whose registration was
 * written (PartnerRecord.updatedAt: a registration, a credentials update, a rotated token) after the last
 * completed pull started (the watermark), is pulled at once, incrementally when it was pulled before. A
 * registration written by any process on the store (the CLI's `partners register`, a partner's POST to
 * another instance) is seen within a second; every instance looks, and the puller's lease lets one pull.
 */
export class RegistrationPulls {
  private timer?: NodeJS.Timeout;
  private looking?: Promise<void>;
  /** the listing looked at last: a listing is the same array while the registration generation stays */
  private seen?: readonly PartnerRecord[];
  /** pulls that failed or found another running, by `partner/module`: when to look at them again */
  private readonly again = new Map<string, number>();

  constructor(
    private readonly targets: ReadonlyMap<string, SyncTarget>,
    private readonly registry: PartnerRegistry,
    private readonly states: SyncStates,
    private readonly puller: SyncPuller,
    private readonly log: Logger,
  ) {}

  start(signal: AbortSignal): void {
    if (this.targets.size === 0) return;
    const look = () => {
      if (this.looking || signal.aborted) return;
      this.looking = this.look(signal)
        // a store outage is logged once by the store, not at every look
        .catch((error) => {
          if (!storeUnavailableIn(error)) this.log.warn({ error: (error as Error).message }, "registration pulls: looking at registrations failed");
        })
        .finally(() => (this.looking = undefined));
    };
    this.timer = setInterval(look, LOOK_EVERY_MS);
    this.timer.unref();
    look();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.looking;
  }

  private async look(signal: AbortSignal): Promise<void> {
    const records = await this.registry.listCurrent();
    const moved = records !== this.seen;
    const now = Date.now();
    if (!moved && ![...this.again.values()].some((at) => at <= now)) return;
    for (const record of records)
      for (const [module, target] of this.targets) {
        const key = `${record.id}/${module}`;
        if (signal.aborted) return;
        if (!moved && !((this.again.get(key) ?? Infinity) <= now)) continue;
        this.again.delete(key);
        if (!(await this.due(record, module, target))) continue;
        try {
          await this.puller.pull(record.id, module, { trigger: "registration", signal });
        } catch (error) {
          // the puller logged a failed pull; one running elsewhere is looked at again soon, when it may have ended
          this.again.set(key, Date.now() + (error instanceof SyncBusyError ? LOOK_EVERY_MS : RETRY_AFTER_MS));
        }
      }
    // only once every partner was looked at: a look the store broke off is made again in full
    this.seen = records;
  }

  /** Whether `record`'s registration is newer than its last completed pull of `module`, which may be pulled from it. */
  private async due(record: PartnerRecord, module: string, target: SyncTarget): Promise<boolean> {
    if (record.status !== "registered" || target.spec.refuses?.(this.registry.profileOf(record).config)) return false;
    if (!record.endpoints.some((e) => e.identifier === module && e.role === "SENDER")) return false;
    const { watermark } = await this.states.get(record.id, module);
    return watermark === undefined || watermark < Date.parse(record.updatedAt);
  }
}
