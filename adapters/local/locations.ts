import { sameParty, type Location, type LocationsReceiverPort, type LocationsSenderPort, type PartyRef, type Store } from "../kit";
import type { LocalModule, LocalModuleContext } from "./local-module";
import { OwnedCollection } from "./owned-collection";

/**
 * Locations in the gateway's store, per owning party and sorted by
 * last_updated. The Sender side serves our own party's Locations (seeded,
 * or written through change events); the Receiver side keeps what partners
 * push. Which Locations partners may see is the plugin's rule; this adapter
 * applies its list filter (`published`) from an index of our published
 * Locations, so such a page costs O(page).
 */
export const localLocations: LocalModule = {
  seedKey: "locations",
  portNames: ["locations.SENDER", "locations.RECEIVER"],
  create(store: Store, context?: LocalModuleContext) {
    const locations = new OwnedCollection<Location>(store, "locations");
    const published = new OwnedCollection<Location>(store, "locations.published");
    const ours = (owner: PartyRef) => !context || context.parties.some((p) => sameParty(p, owner));
    const index = async (owner: PartyRef, location: Location | undefined) => {
      if (!location || !ours(owner)) return;
      if (location.publish === false) await published.delete(owner, location.id);
      else await published.put(owner, location.id, location);
    };
    const sender: LocationsSenderPort = {
      list: (page, ctx) => (page.published ? published : locations).list(ctx.party, page),
      listJson: (page, ctx) => (page.published ? published : locations).listJson(ctx.party, page),
      get: (id, ctx) => locations.get(ctx.party, id),
    };
    const receiver: LocationsReceiverPort = {
      get: (owner, id) => locations.get(owner, id),
      async put(owner, location) {
        const outcome = await locations.put(owner, location.id, location);
        await index(owner, location);
        return outcome;
      },
      async putAll(owner, all) {
        await locations.putAll(owner, all.map((location) => ({ key: location.id, value: location })));
        for (const location of all) await index(owner, location);
      },
      async update(owner, id, change) {
        const updated = await locations.modify(owner, id, change);
        await index(owner, updated);
        return updated;
      },
    };
    return {
      ports: { "locations.SENDER": sender, "locations.RECEIVER": receiver },
      async seed(object) {
        for (const field of ["country_code", "party_id", "id", "last_updated"])
          if (typeof object[field] !== "string") throw new Error(`a Location needs a string ${field}`);
        const location = object as unknown as Location;
        const owner: PartyRef = { country_code: location.country_code, party_id: location.party_id };
        await receiver.put(owner, location, { party: owner });
      },
    };
  },
};
