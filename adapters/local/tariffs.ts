import type { PartyRef, Store, Tariff, TariffsReceiverPort, TariffsSenderPort } from "../kit";
import type { LocalModule, LocalModulePorts } from "./local-module";
import { OwnedCollection } from "./owned-collection";

const ownerOf = (tariff: Tariff): PartyRef => ({ country_code: tariff.country_code.toUpperCase(), party_id: tariff.party_id.toUpperCase() });

/**
 * Tariffs of the `local` adapter, one owner-scoped collection for both
 * roles: the Sender lists our party's own tariffs (seeded, or written by a
 * back office through the store), the Receiver keeps partners' tariffs
 * under their owner.
 */
export const localTariffs: LocalModule = {
  seedKey: "tariffs",
  portNames: ["tariffs.SENDER", "tariffs.RECEIVER"],
  create(store: Store): LocalModulePorts {
    const tariffs = new OwnedCollection<Tariff>(store, "tariffs");
    const sender: TariffsSenderPort = {
      list: (page, ctx) => tariffs.list(ctx.party, page),
    };
    const receiver: TariffsReceiverPort = {
      get: (owner, id) => tariffs.get(owner, id),
      put: (owner, tariff) => tariffs.put(owner, tariff.id, tariff),
      update: (owner, id, change) => tariffs.modify(owner, id, change),
      delete: (owner, id) => tariffs.delete(owner, id),
    };
    return {
      ports: { "tariffs.SENDER": sender, "tariffs.RECEIVER": receiver },
      async seed(object) {
        const tariff = object as unknown as Tariff;
        if (typeof tariff.country_code !== "string" || typeof tariff.party_id !== "string" || typeof tariff.id !== "string")
          throw new Error("a tariff needs country_code, party_id and id");
        if (typeof tariff.last_updated !== "string") throw new Error(`tariff ${tariff.id} needs last_updated`);
        await tariffs.put(ownerOf(tariff), tariff.id, tariff);
      },
    };
  },
};
