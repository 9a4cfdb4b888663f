import type { Page } from "../../core/plugin";
import type { PageRequest } from "../../core/http/pagination";
import type { PortContext, PutOutcome } from "../../core/ports";
import type { PartyRef } from "../../core/protocol/types";
import type { ChargingPreferences, ChargingPreferencesResponse, Session, SessionPatch } from "./model";

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
   * Apply a fragment with the semantics of applySessionPatch (patch.ts:
   * charging_periods appended). The receiver route has checked that the
   * merged result is a valid Session. false = unknown session.
   */
  patch(owner: PartyRef, id: string, fragment: SessionPatch, ctx: PortContext): Promise<boolean>;
}
