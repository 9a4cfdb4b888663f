import { randomUUID } from "node:crypto";
import type { Store } from "../../core/contract/store";
import { OcpiError } from "../../core/contract/errors";
import { Status } from "../../core/protocol/status";

/** Longest one request is held: a backend that hangs must not keep its request_id locked for ever. */
const HOLD_MS = 30_000;
/** How long a request waits for the one before it under the same name; then 3000 on HTTP 503, to be retried. */
const WAIT_MS = 10_000;
const POLL_MS = 20;

/**
 * Work done one at a time per name across every instance on the store: the
 * store's expiring lock (acquireLock, shared by the instances on one store),
 * taken before the work and let go after it, whatever happened.
 */
export class RequestLocks {
  constructor(private readonly store: Pick<Store, "acquireLock" | "releaseLock">) {}

  async serialized<T>(name: string, work: () => Promise<T>): Promise<T> {
    const owner = randomUUID();
    const deadline = Date.now() + WAIT_MS;
    while (!(await this.store.acquireLock(name, owner, HOLD_MS))) {
      if (Date.now() > deadline) throw new OcpiError(Status.SERVER_ERROR, "Another request under this request_id is still being handled; try again", 503);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    try {
      return await work();
    } finally {
      await this.store.releaseLock(name, owner).catch(() => undefined);
    }
  }
}
