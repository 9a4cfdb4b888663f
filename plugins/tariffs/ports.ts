import type { Page } from "../../core/http/pagination";
import type { PageRequest } from "../../core/http/pagination";
import type { PortContext, PutOutcome } from "../../core/ports";
import type { PartyRef } from "../../core/protocol/types";
import type { Tariff } from "./model";

/** Our own party's tariffs (`ctx.party`), served to partners that pull them. */
export interface TariffsSenderPort {
  /** a page of the party's tariffs, ordered by last_updated, filtered on it (from inclusive, to exclusive) */
  list(page: PageRequest, ctx: PortContext): Promise<Page<Tariff>>;
}

/** Tariffs partners push to us, kept per owning party. */
export interface TariffsReceiverPort {
  get(owner: PartyRef, id: string, ctx: PortContext): Promise<Tariff | undefined>;
  /** creates or replaces the whole tariff */
  put(owner: PartyRef, tariff: Tariff, ctx: PortContext): Promise<PutOutcome>;
  /**
   * 2.1.1 PATCH: replaces the stored tariff by `change(current)` in one
   * atomic step (the plugin merges and validates). `change` may throw
   * (nothing is stored) and may run more than once. Undefined when unknown.
   */
  update(owner: PartyRef, id: string, change: (current: Tariff) => Tariff, ctx: PortContext): Promise<Tariff | undefined>;
  /** false when there was no such tariff */
  delete(owner: PartyRef, id: string, ctx: PortContext): Promise<boolean>;
}
