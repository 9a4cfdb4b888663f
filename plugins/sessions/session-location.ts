import type { Logger } from "pino";
import type { DataChange } from "../../core/contract/change-feed";
import { partyKey, sameParty, type PartyRef } from "../../core/protocol/types";
import { sameId, type Location } from "../locations/model";
import { OWN_LOCATION, type Session } from "./model";

/** The ids naming where a session charges. */
export type SessionPlace = Partial<Pick<Session, "location_id" | "evse_uid" | "connector_id">>;

/**
 * The Location of a session as a 2.1.1 Session embeds it: `location` with
 * only the session's EVSE, and in it only the session's connector (OCPI
 * 2.1.1 Sessions module, Session object: "the Location object ... only the
 * EVSE and Connector used"). Undefined when `location` is not the session's
 * or lacks that EVSE or connector. Ids are CiStrings: compared ignoring case.
 */
export const sessionLocation = (location: Location | undefined, place: SessionPlace): Location | undefined => {
  if (!location || !sameId(location.id, place.location_id)) return undefined;
  const evse = location.evses?.find((e) => sameId(e.uid, place.evse_uid));
  const connector = evse?.connectors?.find((c) => sameId(c.id, place.connector_id));
  if (!evse || !connector) return undefined;
  return { ...location, evses: [{ ...evse, connectors: [connector] }] };
};

/** One of our Locations by owner and id, canonical (plugins/locations/location-lookup.ts with the SENDER role). */
export type OwnLocations = (owner: PartyRef, id: string) => Promise<Record<string, unknown> | undefined>;

const namesPlace = (object: SessionPlace): boolean =>
  typeof object.location_id === "string" && typeof object.evse_uid === "string" && typeof object.connector_id === "string";

/**
 * Attaches to our own sessions, where they leave the gateway, their
 * Location from our Locations (OWN_LOCATION, reduced by sessionLocation),
 * for the 2.1.1 translation (translate.ts), which needs the whole Location
 * and cannot look it up itself (a translation is synchronous). A session
 * whose Location our Locations do not have (the backend serving them does
 * not know it, no locations module is served, the EVSE or connector is not
 * in it, or the lookup failed) goes without, logged once per place; the
 * translation then sends only the ids (README "Versions and what older
 * ones lose").
 */
export class SessionLocations {
  private readonly missing = new Set<string>();

  constructor(
    private readonly ours: OwnLocations,
    private readonly parties: readonly PartyRef[],
    private readonly log: Logger,
  ) {}

  /**
   * `session` (whole, or a fragment naming all three place ids) of our party `owner`, with its Location attached
   * when we have it; `read` shares lookups among the sessions of one page (most are at few Locations).
   */
  async attach<T extends SessionPlace>(owner: PartyRef, session: T, read: OwnLocations = this.ours): Promise<T> {
    if (!namesPlace(session) || !this.parties.some((p) => sameParty(p, owner))) return session;
    const place = { location_id: session.location_id, evse_uid: session.evse_uid, connector_id: session.connector_id };
    const where = `${owner.country_code}/${owner.party_id}/${place.location_id}/${place.evse_uid}/${place.connector_id}`;
    let found: Location | undefined;
    try {
      const location = (await read(owner, place.location_id!)) as Location | undefined;
      // a module serving several of our parties answers for the first when the owner has none of its own
      found = location && sameParty(location, owner) ? sessionLocation(location, place) : undefined;
    } catch (error) {
      this.log.warn({ err: error, place: where }, "could not read the Location of a session; 2.1.1 partners get only its ids");
      return session;
    }
    if (found) return { ...session, [OWN_LOCATION]: found };
    if (!this.missing.has(where)) {
      this.missing.add(where);
      this.log.warn({ place: where }, "our Locations have no Location, EVSE or connector for a session; 2.1.1 partners get only its ids");
    }
    return session;
  }

  /**
   * A change of our sessions on the ChangeFeed: its object is replaced by
   * one carrying its Location (the stored session is left as it is), so the
   * pushes built from it after this listener carry it too, however late they
   * are rendered. The plugin subscribes when its SENDER port is connected,
   * before the push fan-out subscribes (app/gateway.ts).
   */
  async onChange(change: DataChange): Promise<void> {
    if (change.module !== "sessions" || change.kind === "delete" || !change.object) return;
    change.object = await this.attach(change.owner, change.object as SessionPlace & Record<string, unknown>);
  }

  /** Each of `sessions` (our own, whole) with its Location attached, each Location read once. */
  attachAll<T extends Session>(sessions: readonly T[]): Promise<T[]> {
    const reads = new Map<string, Promise<Record<string, unknown> | undefined>>();
    const read: OwnLocations = (owner, id) => {
      const key = `${partyKey(owner)}/${id.toUpperCase()}`;
      let pending = reads.get(key);
      if (!pending) reads.set(key, (pending = this.ours(owner, id)));
      return pending;
    };
    return Promise.all(sessions.map((s) => this.attach({ country_code: s.country_code, party_id: s.party_id }, s, read)));
  }
}
