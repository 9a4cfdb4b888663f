import type { Page } from "../../core/http/pagination";
import type { PageRequest } from "../../core/http/pagination";
import type { PortContext, PutOutcome } from "../../core/ports";
import type { PartyRef } from "../../core/protocol/types";
import type { ChargingPreferences, ChargingPreferencesResponse, Session } from "./model";

/**
 * Our CPO side: the sessions of `ctx.party`, which partners pull, and their charging preferences.
 * A session belongs to the owner of its token (`cdr_token` country_code + party_id, Part B): when
 * `ctx.scope` is set, `list` returns only sessions whose token owner is `inScope(ctx.scope, cdr_token)`,
 * with `total` counting only those.
 */
export interface SessionsSenderPort {
  /** `ctx.party`'s sessions in `ctx.scope`, filtered on last_updated (from inclusive, to exclusive), oldest first. */
  list(page: PageRequest, ctx: PortContext): Promise<Page<Session>>;
  /** One of `ctx.party`'s sessions whatever its token owner (the plugin decides who may see it); undefined when unknown. */
  get(sessionId: string, ctx: PortContext): Promise<Session | undefined>;
  /**
   * The preference outcome for one of `ctx.party`'s sessions; undefined when there is no such session.
   * Only called for a session `get` returned in the partner's scope.
   */
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
