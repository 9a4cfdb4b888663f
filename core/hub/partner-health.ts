import type { Store } from "../contract/store";

const HEALTH = "hub:health";

/** Whether calls to a partner go through: the start of its current run of failures, if any. */
export interface PartnerHealthRecord {
  /** epoch ms of the first failure since the last success */
  failingSince?: number;
  /** epoch ms of the last success */
  lastSuccessAt?: number;
}

/**
 * Delivery health of each partner as the hub sees it: probes, forwarded
 * requests and (read separately) the outbox. Kept in the store so every
 * instance agrees; written only when a run of failures starts or ends, not
 * on every call.
 */
export class PartnerHealth {
  /** what this instance last wrote or read per partner: true = failing */
  private readonly known = new Map<string, boolean>();

  constructor(private readonly store: Store) {}

  /** This instance last wrote or read a success for the partner (refreshed by every `of`). */
  knownHealthy(partnerId: string): boolean {
    return this.known.get(partnerId) === false;
  }

  async success(partnerId: string): Promise<void> {
    if (this.known.get(partnerId) === false) return;
    this.known.set(partnerId, false);
    await this.store.put<PartnerHealthRecord>(HEALTH, partnerId, { lastSuccessAt: Date.now() });
  }

  async failure(partnerId: string): Promise<void> {
    if (this.known.get(partnerId) === true) return;
    this.known.set(partnerId, true);
    await this.store.update<PartnerHealthRecord>(HEALTH, partnerId, (current) =>
      current?.failingSince !== undefined ? undefined : { value: { ...current, failingSince: Date.now() } },
    );
  }

  async of(partnerId: string): Promise<PartnerHealthRecord> {
    const record = (await this.store.get<PartnerHealthRecord>(HEALTH, partnerId)) ?? {};
    this.known.set(partnerId, record.failingSince !== undefined);
    return record;
  }
}
