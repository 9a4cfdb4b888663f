import type { JsonPage, Page } from "../../core/contract/page";
import type { PageRequest } from "../../core/contract/page";
import type { PortContext } from "../../core/contract/port-context";
import type { UpdatablePort } from "../../core/modules/update-stored";
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
  /** optional: `list` as the JSON the sessions are stored as (a JsonPage, answered without parsing them) */
  listJson?(page: PageRequest, ctx: PortContext): Promise<JsonPage>;
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

/**
 * Our eMSP side: sessions partners push to us, kept per owning CPO. `put`
 * creates or replaces a whole session (charging_periods included); a PATCH
 * is the plugin's rules (charging_periods appended, validity checked) over
 * get and put, or the optional atomic `update` (core/modules/update-stored.ts).
 */
export type SessionsReceiverPort = UpdatablePort<string, Session>;
