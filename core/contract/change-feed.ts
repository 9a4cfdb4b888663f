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

/**
 * What a listener hands back when the listeners after it need not wait for
 * all of its work: `sent` settles once what they do is done after it (the
 * response cache's invalidation is on the wire, on the connection the
 * outbox's enqueue goes on: Redis answers one connection's commands in
 * order), `done` once its work is.
 */
export interface Staged {
  sent: Promise<void>;
  done: Promise<void>;
}

export type ChangeListener = (change: DataChange) => void | Promise<void> | Staged;

/**
 * In-process fan-out of DataChanges. Listeners run in order: each starts
 * when the one before it has finished, or has `sent` what must come first
 * (Staged). One failing does not stop the others.
 */
export class ChangeFeed {
  private readonly listeners: ChangeListener[] = [];

  subscribe(listener: ChangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Resolves when every listener has taken the change (e.g. written it to the outbox) and every Staged one is done. */
  async publish(change: DataChange): Promise<void> {
    const failures: unknown[] = [];
    const finishing: Promise<void>[] = [];
    for (const listener of [...this.listeners]) {
      try {
        const answer = listener(change);
        if (isStaged(answer)) {
          finishing.push(answer.done.catch((error: unknown) => void failures.push(error)));
          await answer.sent.catch(() => undefined);
        } else await answer;
      } catch (error) {
        failures.push(error);
      }
    }
    await Promise.all(finishing);
    if (failures.length) throw new AggregateError(failures, `${failures.length} change listener(s) failed`);
  }
}

const isStaged = (answer: void | Promise<void> | Staged): answer is Staged =>
  typeof answer === "object" && answer !== null && !(answer instanceof Promise) && "sent" in answer;
