import type { Page } from "../../core/contract/page";
import type { PageRequest } from "../../core/contract/page";
import type { PortContext } from "../../core/contract/port-context";
import type { PartyRef } from "../../core/protocol/types";
import type { UpdatablePort } from "../../core/modules/update-stored";
import type { Tariff } from "./model";

/** Our own party's tariffs (`ctx.party`), served to partners that pull them. */
export interface TariffsSenderPort {
  /** a page of the party's tariffs, ordered by last_updated, filtered on it (from inclusive, to exclusive) */
  list(page: PageRequest, ctx: PortContext): Promise<Page<Tariff>>;
}

/**
 * Tariffs partners push to us, kept per owning party: `put` creates or
 * replaces a whole tariff; a 2.1.1 PATCH is the plugin's merge over get and
 * put, or the optional atomic `update` (core/modules/update-stored.ts).
 */
export interface TariffsReceiverPort extends UpdatablePort<string, Tariff> {
  /** false when there was no such tariff */
  delete(owner: PartyRef, id: string, ctx: PortContext): Promise<boolean>;
}
