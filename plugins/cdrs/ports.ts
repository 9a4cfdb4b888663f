import type { PageRequest } from "../../core/http/pagination";
import type { Page } from "../../core/plugin";
import type { PortContext } from "../../core/ports";
import type { PartyRef } from "../../core/protocol/types";
import type { Cdr } from "./model";

/** Sender interface (CPO side): our own party's CDRs (`ctx.party`), oldest first, filtered on last_updated. */
export interface CdrsSenderPort {
  list(page: PageRequest, ctx: PortContext): Promise<Page<Cdr>>;
}

/** Receiver interface (eMSP side): CDRs partners pushed, per owning CPO party. CDRs are immutable. */
export interface CdrsReceiverPort {
  get(owner: PartyRef, id: string, ctx: PortContext): Promise<Cdr | undefined>;
  /** Stores a new CDR; false (and nothing written) when the owner already has a CDR with this id. */
  insert(owner: PartyRef, cdr: Cdr, ctx: PortContext): Promise<boolean>;
}
