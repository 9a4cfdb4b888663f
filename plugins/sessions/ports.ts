import type { Page } from "../../core/plugin";
import type { PageRequest } from "../../core/http/pagination";
import type { PortContext, PutOutcome } from "../../core/ports";
import type { PartyRef } from "../../core/protocol/types";
import type { ChargingPreferences, ChargingPreferencesResponse, Session } from "./model";

/** Our CPO side: the sessions of `ctx.party`, which partners pull, and their charging preferences. */
export interface SessionsSenderPort {
  /** `ctx.party`'s sessions, filtered on last_updated (from inclusive, to exclusive), oldest first. */
  list(page: PageRequest, ctx: PortContext): Promise<Page<Session>>;
  /** The preference outcome for one of `ctx.party`'s sessions; undefined when there is no such session. */
  setChargingPreferences(
    sessionId: string,
    preferences: ChargingPreferences,
    ctx: PortContext,
  ): Promise<ChargingPreferencesResponse | undefined>;
}

/** Our eMSP side: sessions partners push to us, kept per owning CPO. */
export interface SessionsReceiverPort {
  get(owner: PartyRef, id: string, ctx: PortContext): Promise<Session | undefined>;
  /** Create or replace the whole session (charging_periods included). */
  put(owner: PartyRef, session: Session, ctx: PortContext): Promise<PutOutcome>;
  /**
   * Replaces the stored Session by `change(current)` in one atomic step:
   * the plugin provides the PATCH rules (charging_periods appended) and the
   * validity check. `change` may throw (nothing is stored) and may run more
   * than once, so it must be pure. Undefined when the Session is unknown.
   */
  update(owner: PartyRef, id: string, change: (current: Session) => Session, ctx: PortContext): Promise<Session | undefined>;
}
