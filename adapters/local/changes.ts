import { isDeepStrictEqual } from "node:util";
import type { Store } from "../../core/store/port";
import type { DataChange, ChangeFeed } from "../../core/events/change-feed";
import type { PartyRef } from "../../core/protocol/types";
import { changesPortName, type ChangeOutcome, type ChangesPort } from "../../core/push/push-spec";
import { OcpiError } from "../../core/http/errors";
import type { Connector, Evse, Location } from "../../plugins/locations/model";
import { patchConnector, patchEvse, patchLocation, putConnector, putEvse } from "../../plugins/locations/merge";
import type { Session } from "../../plugins/sessions/model";
import { applySessionPatch } from "../../plugins/sessions/patch";
import type { Tariff } from "../../plugins/tariffs/model";
import type { Token } from "../../plugins/tokens/model";
import type { Cdr } from "../../plugins/cdrs/model";
import { OwnedCollection } from "./owned-collection";
import { keyOf as locationKey } from "./locations";
import { keyOf as tokenKey } from "./tokens";

type Apply = (change: DataChange) => Promise<ChangeOutcome>;

const APPLIED: ChangeOutcome = { applied: true };
const unknown = (what: string): ChangeOutcome => ({ applied: false, unknownObject: true, reason: `${what} not found` });
const unsupported = (change: DataChange): ChangeOutcome => ({
  applied: false,
  reason: `${change.module}: a ${change.kind} at path depth ${change.path.length} is not supported`,
});

/** A change function's "no such EVSE/Connector" (the merge helpers throw 404s) as an outcome. */
const orUnknown = async (apply: () => Promise<ChangeOutcome>): Promise<ChangeOutcome> => {
  try {
    return await apply();
  } catch (error) {
    if (error instanceof OcpiError && error.httpStatus === 404) return { applied: false, unknownObject: true, reason: error.message };
    throw error;
  }
};

const locations = (store: Store): Apply => {
  const collection = new OwnedCollection<Location>(store, "locations");
  const change = async (owner: PartyRef, id: string, apply: (current: Location) => Location): Promise<ChangeOutcome> =>
    orUnknown(async () => ((await collection.modify(owner, locationKey(id), apply)) ? APPLIED : unknown(`Location ${id}`)));
  return async (c) => {
    const [locationId, evseUid, connectorId] = c.path;
    const object = c.object ?? {};
    const stamp = String(object.last_updated);
    switch (`${c.kind}/${c.path.length}`) {
      case "upsert/1":
        await collection.put(c.owner, locationKey(locationId), object as unknown as Location);
        return APPLIED;
      case "patch/1":
        return change(c.owner, locationId, (current) => patchLocation(current, object as Partial<Location>, stamp));
      case "upsert/2":
        return change(c.owner, locationId, (current) => putEvse(current, object as unknown as Evse).location);
      case "patch/2":
        return change(c.owner, locationId, (current) => patchEvse(current, evseUid, object as Partial<Evse>, stamp));
      case "upsert/3":
        return change(c.owner, locationId, (current) => putConnector(current, evseUid, object as unknown as Connector).location);
      case "patch/3":
        return change(c.owner, locationId, (current) => patchConnector(current, evseUid, connectorId, object as Partial<Connector>, stamp));
      default:
        return unsupported(c);
    }
  };
};

const sessions = (store: Store): Apply => {
  const collection = new OwnedCollection<Session>(store, "sessions");
  return async (c) => {
    const [id] = c.path;
    if (c.kind === "upsert") {
      await collection.put(c.owner, id, c.object as unknown as Session);
      return APPLIED;
    }
    if (c.kind === "patch") return (await collection.modify(c.owner, id, (current) => applySessionPatch(current, c.object!))) ? APPLIED : unknown(`Session ${id}`);
    return unsupported(c);
  };
};

const tariffs = (store: Store): Apply => {
  const collection = new OwnedCollection<Tariff>(store, "tariffs");
  return async (c) => {
    const [id] = c.path;
    if (c.kind === "upsert") {
      await collection.put(c.owner, id, c.object as unknown as Tariff);
      return APPLIED;
    }
    if (c.kind === "delete") return (await collection.delete(c.owner, id)) ? APPLIED : unknown(`Tariff ${id}`);
    return unsupported(c);
  };
};

const tokens = (store: Store): Apply => {
  const collection = new OwnedCollection<Token>(store, "tokens");
  return async (c) => {
    // a PATCH names the token's type when it is not RFID, as the receiver's ?type= does
    const ref = { uid: c.path[0], type: (c.object?.type as Token["type"] | undefined) ?? "RFID" };
    if (c.kind === "upsert") {
      await collection.put(c.owner, tokenKey(ref), c.object as unknown as Token);
      return APPLIED;
    }
    if (c.kind === "patch")
      return (await collection.modify(c.owner, tokenKey(ref), (current) => ({ ...current, ...c.object }) as Token)) ? APPLIED : unknown(`Token ${ref.uid}`);
    return unsupported(c);
  };
};

const cdrs = (store: Store): Apply => {
  const collection = new OwnedCollection<Cdr>(store, "cdrs");
  return async (c) => {
    const [id] = c.path;
    if (c.kind !== "upsert") return unsupported(c);
    const cdr = c.object as unknown as Cdr;
    if (await collection.insert(c.owner, id, cdr)) return APPLIED;
    // The backend retrying an event we took: pushed again (receivers take an identical CDR again), so nothing is lost.
    if (isDeepStrictEqual(await collection.get(c.owner, id), cdr)) return APPLIED;
    return { applied: false, reason: `CDR ${id} already exists with other content; CDRs cannot be replaced (send a credit CDR)` };
  };
};

const APPLIERS: Record<string, (store: Store) => Apply> = { locations, sessions, tariffs, tokens, cdrs };

export const LOCAL_CHANGES_PORT_NAMES = Object.keys(APPLIERS).map(changesPortName);

/**
 * The `local` adapter's `<module>.CHANGES` ports: a change event about our
 * own party's data (POST /admin/v1/events) is stored with the same merge
 * rules the receivers use, then published, so pushes follow.
 */
export const localChangesPorts = (store: Store, feed: ChangeFeed): Record<string, ChangesPort> =>
  Object.fromEntries(
    Object.entries(APPLIERS).map(([module, create]) => {
      const apply = create(store);
      const port: ChangesPort = {
        async apply(change) {
          const outcome = await apply(change);
          if (outcome.applied) await feed.publish(change);
          return outcome;
        },
      };
      return [changesPortName(module), port];
    }),
  );
