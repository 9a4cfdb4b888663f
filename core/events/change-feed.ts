import type { PartyRef } from "../protocol/types";

/**
 * A change to data one of our parties owns, as the gateway learns of it:
 * an adapter reports it, the `local` adapter was written, or a legacy
 * backend posted it to /admin/v1/events. Pushes to partners and cache
 * invalidation both follow from it.
 */
export interface DataChange {
  module: string;
  owner: PartyRef;
  /** object path below the owner, e.g. ["LOC1"], ["LOC1", "EVSE1"], ["LOC1", "EVSE1", "1"] */
  path: string[];
  kind: "upsert" | "patch" | "delete";
  /** canonical (2.3.0) object or fragment; absent for deletes */
  object?: Record<string, unknown>;
  /**
   * Not for every partner: the object is not published (a Location with
   * publish false, or a part of one). It invalidates caches but is not pushed.
   */
  withheld?: boolean;
}

export type ChangeListener = (change: DataChange) => void | Promise<void>;

/** In-process fan-out of DataChanges; listeners run in order and one failing does not stop the others. */
export class ChangeFeed {
  private readonly listeners: ChangeListener[] = [];

  subscribe(listener: ChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Resolves when every listener has taken the change (e.g. written it to the outbox). */
  async publish(change: DataChange): Promise<void> {
    const failures: unknown[] = [];
    for (const listener of [...this.listeners]) {
      try {
        await listener(change);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length) throw new AggregateError(failures, `${failures.length} change listener(s) failed`);
  }
}
