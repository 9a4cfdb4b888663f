import { Status } from "../../core/protocol/status";
import { notFound } from "../../core/contract/errors";
import type { PutOutcome } from "../../core/contract/port-context";
import type { ChangeRule } from "../../core/modules/receiver-writes";
import { sameId, type Connector, type Evse, type Location } from "./model";
import { locationType } from "./translate";

/**
 * Pure changes of a stored Location for the receiver's pushes. Each sets
 * the parents' last_updated to the pushed object's (the propagation rule:
 * a Connector change updates its EVSE and Location, an EVSE change its
 * Location), so the Location's sort key follows and date-filtered lists
 * see child changes. Unknown EVSEs or Connectors throw a 404.
 */

/**
 * A partner's change must leave a whole, valid Location in the partner's own
 * version (what it would PUT whole); a `strictness: log` partner gets a
 * warning instead (core/modules/receiver-writes.ts).
 */
export const LOCATION_CHANGES: ChangeRule<Location> = { type: locationType, checkedIn: "partner" };

export interface Changed {
  location: Location;
  outcome: PutOutcome;
}

/** Replaces the element with the same id, or appends it; says which. */
const upsert = <T>(list: readonly T[], item: T, idOf: (t: T) => string): { list: T[]; outcome: PutOutcome } => {
  const index = list.findIndex((x) => sameId(idOf(x), idOf(item)));
  if (index < 0) return { list: [...list, item], outcome: "created" };
  const copy = [...list];
  copy[index] = item;
  return { list: copy, outcome: "updated" };
};

const evseIndex = (location: Location, uid: string): number => {
  const index = (location.evses ?? []).findIndex((e) => sameId(e.uid, uid));
  if (index < 0) throw notFound(`EVSE ${uid} of Location ${location.id}`, Status.UNKNOWN_LOCATION);
  return index;
};

const withEvse = (location: Location, index: number, evse: Evse, stamp: string): Location => {
  const evses = [...(location.evses ?? [])];
  evses[index] = evse;
  return { ...location, evses, last_updated: stamp };
};

export const putEvse = (location: Location, evse: Evse): Changed => {
  const { list, outcome } = upsert(location.evses ?? [], evse, (e) => e.uid);
  return { location: { ...location, evses: list, last_updated: evse.last_updated }, outcome };
};

export const putConnector = (location: Location, evseUid: string, connector: Connector): Changed => {
  const index = evseIndex(location, evseUid);
  const evse = location.evses![index];
  const { list, outcome } = upsert(evse.connectors ?? [], connector, (c) => c.id);
  const stamp = connector.last_updated;
  return { location: withEvse(location, index, { ...evse, connectors: list, last_updated: stamp }, stamp), outcome };
};

/** Merges whole children given in a PATCH by id: given ones replace or join, others stay (PATCH cannot remove). */
const mergeById = <T>(current: readonly T[] | undefined, given: readonly T[], idOf: (t: T) => string): T[] =>
  given.reduce<T[]>((list, item) => upsert(list, item, idOf).list, [...(current ?? [])]);

/**
 * A Location PATCH: given fields replace, `evses` are whole EVSEs merged by
 * uid (the published examples patch an EVSE at its own path; this keeps a
 * Location-level `evses` from wiping the EVSEs it does not name).
 */
export const patchLocation = (location: Location, fragment: Partial<Location>, stamp: string): Location => {
  const { evses, ...fields } = fragment;
  const merged: Location = { ...location, ...fields, last_updated: stamp };
  if (Array.isArray(evses)) merged.evses = mergeById(location.evses, evses, (e) => e.uid);
  return merged;
};

export const patchEvse = (location: Location, evseUid: string, fragment: Partial<Evse>, stamp: string): Location => {
  const index = evseIndex(location, evseUid);
  const current = location.evses![index];
  const { connectors, ...fields } = fragment;
  const evse: Evse = { ...current, ...fields, last_updated: stamp };
  if (Array.isArray(connectors)) evse.connectors = mergeById(current.connectors, connectors, (c) => c.id);
  return withEvse(location, index, evse, stamp);
};

export const patchConnector = (location: Location, evseUid: string, connectorId: string, fragment: Partial<Connector>, stamp: string): Location => {
  const index = evseIndex(location, evseUid);
  const evse = location.evses![index];
  const at = (evse.connectors ?? []).findIndex((c) => sameId(c.id, connectorId));
  if (at < 0) throw notFound(`Connector ${connectorId} of EVSE ${evseUid}`, Status.UNKNOWN_LOCATION);
  const connectors = [...evse.connectors];
  connectors[at] = { ...connectors[at], ...fragment, last_updated: stamp };
  return withEvse(location, index, { ...evse, connectors, last_updated: stamp }, stamp);
};

/** The EVSE and Connector addressed by a path, for GETs. */
export const findEvse = (location: Location, uid: string): Evse | undefined => (location.evses ?? []).find((e) => sameId(e.uid, uid));

export const findConnector = (evse: Evse, id: string): Connector | undefined => (evse.connectors ?? []).find((c) => sameId(c.id, id));
