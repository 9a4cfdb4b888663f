import type { PageRequest } from "../../core/contract/page";
import type { JsonPage, Page } from "../../core/contract/page";
import type { PortContext } from "../../core/contract/port-context";
import type { PartyRef } from "../../core/protocol/types";
import type { Cdr } from "./model";

/**
 * Sender interface (CPO side): our own party's CDRs (`ctx.party`), oldest first, filtered on last_updated.
 * A CDR belongs to the owner of its token (`cdr_token` country_code + party_id, Part B): when `ctx.scope`
 * is set, only CDRs whose token owner is `inScope(ctx.scope, cdr_token)` are listed and counted in `total`.
 */
export interface CdrsSenderPort {
  list(page: PageRequest, ctx: PortContext): Promise<Page<Cdr>>;
  /** optional: `list` as the JSON the CDRs are stored as (a JsonPage, answered without parsing them) */
  listJson?(page: PageRequest, ctx: PortContext): Promise<JsonPage>;
}

/** Receiver interface (eMSP side): CDRs partners pushed, per owning CPO party. CDRs are immutable. */
export interface CdrsReceiverPort {
  get(owner: PartyRef, id: string, ctx: PortContext): Promise<Cdr | undefined>;
  /** Stores a new CDR; false (and nothing written) when the owner already has a CDR with this id. */
  insert(owner: PartyRef, cdr: Cdr, ctx: PortContext): Promise<boolean>;
}
