import type { Store } from "../../core/store/port";
import type { PartyRef } from "../../core/protocol/types";
import type { LocationsReceiverPort, LocationsSenderPort, Location } from "../../plugins/locations/ports";
import type { LocalModule } from "./local-module";
import { OwnedCollection } from "./owned-collection";

/** Location ids are CiStrings: one key whatever the case a partner uses. */
export const keyOf = (id: string): string => id.toUpperCase();

/**
 * Locations in the gateway's store, per owning party and sorted by
 * last_updated. The Sender side serves our own party's Locations (seeded,
 * or written by another adapter); the Receiver side keeps what partners push.
 */
export const localLocations: LocalModule = {
  seedKey: "locations",
  portNames: ["locations.SENDER", "locations.RECEIVER"],
  create(store: Store) {
    const locations = new OwnedCollection<Location>(store, "locations");
    const sender: LocationsSenderPort = {
      list: (page, ctx) => locations.list(ctx.party, page),
      get: (id, ctx) => locations.get(ctx.party, keyOf(id)),
    };
    const receiver: LocationsReceiverPort = {
      get: (owner, id) => locations.get(owner, keyOf(id)),
      put: (owner, location) => locations.put(owner, keyOf(location.id), location),
      update: (owner, id, change) => locations.modify(owner, keyOf(id), change),
    };
    return {
      ports: { "locations.SENDER": sender, "locations.RECEIVER": receiver },
      async seed(object) {
        for (const field of ["country_code", "party_id", "id", "last_updated"])
          if (typeof object[field] !== "string") throw new Error(`a Location needs a string ${field}`);
        const location = object as unknown as Location;
        const owner: PartyRef = { country_code: location.country_code, party_id: location.party_id };
        await locations.put(owner, keyOf(location.id), location);
      },
    };
  },
};
