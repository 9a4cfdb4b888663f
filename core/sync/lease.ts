import { randomUUID } from "node:crypto";
import type { Store } from "../contract/store";

/**
 * A store lock held for as long as a job runs: renewed every third of its
 * time to live, so a crashed holder frees it within one TTL while a live
 * one keeps it indefinitely. `lost` turns true when a renewal finds the lock
 * taken over (or none succeeded within a TTL); the holder must then stop
 * without committing, since another instance may be doing the same work.
 */
export class Lease {
  private readonly timer: NodeJS.Timeout;
  private lastRenewedAt = Date.now();
  private revoked = false;

  private constructor(
    private readonly store: Store,
    readonly name: string,
    private readonly owner: string,
    private readonly ttlMs: number,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  /** The lease, or undefined when another holder has the lock. */
  static async acquire(store: Store, name: string, ttlMs: number): Promise<Lease | undefined> {
    const owner = randomUUID();
    return (await store.acquireLock(name, owner, ttlMs)) ? new Lease(store, name, owner, ttlMs) : undefined;
  }

  get lost(): boolean {
    return this.revoked || Date.now() - this.lastRenewedAt >= this.ttlMs;
  }

  /** Frees the lock for the next holder; a lock taken over meanwhile is left alone (release is per owner). */
  async release(): Promise<void> {
    this.revoke();
    try {
      await this.store.releaseLock(this.name, this.owner);
    } catch {
      // An unreachable store lets the lock expire by itself.
    }
  }

  private async renew(): Promise<void> {
    if (this.revoked) return;
    try {
      if (await this.store.renewLock(this.name, this.owner, this.ttlMs)) this.lastRenewedAt = Date.now();
      else this.revoke();
    } catch {
      // The store is unreachable for now: `lost` turns true by itself once a whole TTL passed without a renewal.
      if (this.lost) this.revoke();
    }
  }

  private revoke(): void {
    this.revoked = true;
    clearInterval(this.timer);
  }
}
