import type { Store } from "../contract/store";

/** What the store remembers of one partner's module between pulls. */
export interface SyncState {
  /** epoch ms at which the last completed pull started: the next incremental pull asks for changes since then, minus the overlap */
  watermark?: number;
  /** the latest scheduled tick (epoch ms) an instance took on, so one tick runs once however many instances fire */
  lastTick?: number;
}

const COLLECTION = "sync";

const keyOf = (partnerId: string, module: string): string => `${partnerId}/${module}`;

/** Sync watermarks and tick claims in the gateway's store (shared by every instance on one Redis). */
export class SyncStates {
  constructor(private readonly store: Store) {}

  async get(partnerId: string, module: string): Promise<SyncState> {
    return (await this.store.get<SyncState>(COLLECTION, keyOf(partnerId, module))) ?? {};
  }

  /** Records a completed pull; the watermark never moves back. */
  async completed(partnerId: string, module: string, startedAt: number): Promise<void> {
    await this.store.update<SyncState>(COLLECTION, keyOf(partnerId, module), (current) =>
      (current?.watermark ?? -Infinity) >= startedAt ? undefined : { value: { ...current, watermark: startedAt } },
    );
  }

  /**
   * Takes on a scheduled tick; false when this instance or another already
   * took it or a later one. Atomic, so of several instances firing for the
   * same tick exactly one gets true (clocks need only agree within a tick).
   */
  async claimTick(partnerId: string, module: string, tick: number): Promise<boolean> {
    let claimed = false;
    await this.store.update<SyncState>(COLLECTION, keyOf(partnerId, module), (current) => {
      claimed = (current?.lastTick ?? -Infinity) < tick;
      return claimed ? { value: { ...current, lastTick: tick } } : undefined;
    });
    return claimed;
  }
}
