import { FACS, TERMINALS, paymentsChange, type ChangeFeed, type PartyRef, type Store } from "../kit";
import type { Device, Settlement } from "./contract";
import { facOf, terminalOf } from "./mapping";

/** What was reported last per device and settlement: its `updated`, so the webhook, the poll and our own writes report a change once. */
const PUBLISHED = "tms:published";

/**
 * Reports changes of the system's devices and settlements on the change
 * feed (then pushed to the CPO partners: a Terminal to the CPO it names, a
 * FAC to the CPO party it is attributed to; plugins/payments/push.ts),
 * each state once: whichever of our own write, the webhook or the poll
 * sees it first reports it, the others find it reported (kept in the
 * store, so a restart repeats nothing and instances share it; two paths
 * seeing one state at the same moment may both report it: the partner
 * gets the same object again).
 */
export class TmsPublisher {
  constructor(
    private readonly store: Store,
    private readonly changes: ChangeFeed,
    private readonly owner: PartyRef,
  ) {}

  device(device: Device): Promise<boolean> {
    return this.once(`d:${device.serial.toUpperCase()}`, device.updated, () => this.changes.publish(paymentsChange(this.owner, TERMINALS, terminalOf(device))));
  }

  settlement(settlement: Settlement): Promise<boolean> {
    return this.once(`s:${settlement.settlement_id.toUpperCase()}`, settlement.updated, () =>
      this.changes.publish(paymentsChange(this.owner, FACS, facOf(settlement))),
    );
  }

  /** Publishes when `updated` is newer than what was reported; true when it did. Marked after the publish: a failed one is tried again. */
  private async once(key: string, updated: number, publish: () => Promise<void>): Promise<boolean> {
    const last = await this.store.get<number>(PUBLISHED, key);
    if (last !== undefined && last >= updated) return false;
    await publish();
    await this.store.update<number>(PUBLISHED, key, (current) => (current !== undefined && current >= updated ? undefined : { value: updated }));
    return true;
  }
}
