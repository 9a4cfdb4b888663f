import { ocpiTimestamp, type ChargingPreferences, type ChargingPreferencesResponse, type PartyRef, type PortContext, type Session, type SessionsReceiverPort, type SessionsSenderPort, type Store } from "../kit";
import type { LocalModule, LocalModuleContext } from "./local-module";
import { OwnedCollection } from "./owned-collection";
import { TokenOwnedCollection } from "./token-owned-collection";

/** The profiles this simulated backend can steer: all of OCPI's. */
const SUPPORTED_PROFILES: readonly string[] = ["CHEAP", "FAST", "GREEN", "REGULAR"];

type StoredPreferences = ChargingPreferences & { session_id: string; last_updated: string };

/**
 * Charging preferences of the local adapter, simple rules in this order:
 * - unknown session of our party → undefined (the route answers 404);
 * - a profile_type other than CHEAP, FAST, GREEN, REGULAR → PROFILE_TYPE_NOT_SUPPORTED
 *   (only reachable from a `strictness: log` partner; the schema rejects it otherwise);
 * - a COMPLETED or INVALID session → NOT_POSSIBLE (nothing left to steer);
 * - CHEAP or GREEN without departure_time → DEPARTURE_REQUIRED (shifting charging in time needs a deadline);
 * - CHEAP or GREEN without energy_need → ENERGY_NEED_REQUIRED (and how much to charge by then);
 * - otherwise ACCEPTED, and the preferences are kept per session.
 */
export const chargingPreferencesOutcome = (session: Session, preferences: ChargingPreferences): ChargingPreferencesResponse => {
  if (!SUPPORTED_PROFILES.includes(preferences.profile_type)) return "PROFILE_TYPE_NOT_SUPPORTED";
  if (session.status === "COMPLETED" || session.status === "INVALID") return "NOT_POSSIBLE";
  const scheduled = preferences.profile_type === "CHEAP" || preferences.profile_type === "GREEN";
  if (scheduled && !preferences.departure_time) return "DEPARTURE_REQUIRED";
  if (scheduled && preferences.energy_need == null) return "ENERGY_NEED_REQUIRED";
  return "ACCEPTED";
};

/**
 * Sessions over the gateway's store. One collection, per owning party: our
 * own party's sessions (sender side, from the seed or a backend feed) and
 * the sessions partners push to us (receiver side) never share an owner.
 * Ours are also indexed by token owner, so a partner's list is a page of its
 * own eMSP's sessions (adapters/local/token-owned-collection.ts).
 */
export const localSessions: LocalModule = {
  seedKey: "sessions",
  portNames: ["sessions.SENDER", "sessions.RECEIVER"],
  create(store: Store, context?: LocalModuleContext) {
    const sessions = new TokenOwnedCollection<Session>(store, "sessions", context?.parties ?? []);
    const preferences = new OwnedCollection<StoredPreferences>(store, "sessions.charging_preferences");

    const sender: SessionsSenderPort = {
      list: (page, ctx: PortContext) => sessions.list(ctx.party, page, ctx.scope),
      listJson: (page, ctx: PortContext) => sessions.listJson(ctx.party, page, ctx.scope),
      get: (sessionId, ctx) => sessions.get(ctx.party, sessionId),
      async setChargingPreferences(sessionId, prefs, ctx) {
        const session = await sessions.get(ctx.party, sessionId);
        if (!session) return undefined;
        const outcome = chargingPreferencesOutcome(session, prefs);
        if (outcome === "ACCEPTED")
          await preferences.put(ctx.party, sessionId, { ...prefs, session_id: sessionId, last_updated: ocpiTimestamp() });
        return outcome;
      },
    };

    const receiver: SessionsReceiverPort = {
      get: (owner: PartyRef, id) => sessions.get(owner, id),
      put: (owner, session) => sessions.put(owner, session.id, session),
      update: (owner, id, change) => sessions.modify(owner, id, change),
    };

    return {
      ports: { "sessions.SENDER": sender, "sessions.RECEIVER": receiver },
      async seed(object) {
        const session = object as unknown as Session;
        await sessions.put({ country_code: session.country_code, party_id: session.party_id }, session.id, session);
      },
    };
  },
};
