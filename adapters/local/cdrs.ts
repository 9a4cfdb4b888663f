import { isDeepStrictEqual } from "node:util";
import type { Cdr, CdrsReceiverPort, CdrsSenderPort, PartyRef, Store } from "../kit";
import type { LocalModule, LocalModuleContext, LocalModulePorts } from "./local-module";
import { TokenOwnedCollection } from "./token-owned-collection";

/**
 * CDRs in the gateway's store. Sender and receiver share one collection per
 * owning party: our own CDRs (sender side, owner = our party) and partners'
 * pushed CDRs (receiver side, owner = their party) never share an owner.
 * Writes are put-if-absent: a CDR is never replaced. Ours are also indexed
 * by token owner, so a partner's list is a page of its own eMSP's CDRs
 * (adapters/local/token-owned-collection.ts).
 */
export const localCdrs: LocalModule = {
  seedKey: "cdrs",
  portNames: ["cdrs.SENDER", "cdrs.RECEIVER"],
  create(store: Store, context?: LocalModuleContext): LocalModulePorts {
    const cdrs = new TokenOwnedCollection<Cdr>(store, "cdrs", context?.parties ?? []);
    const sender: CdrsSenderPort = {
      list: (page, ctx) => cdrs.list(ctx.party, page, ctx.scope),
      listJson: (page, ctx) => cdrs.listJson(ctx.party, page, ctx.scope),
    };
    const receiver: CdrsReceiverPort = {
      get: (owner, id) => cdrs.get(owner, id),
      insert: (owner, cdr) => cdrs.insert(owner, cdr.id, cdr),
    };
    return {
      ports: { "cdrs.SENDER": sender, "cdrs.RECEIVER": receiver },
      async seed(object) {
        const cdr = object as unknown as Cdr;
        const owner: PartyRef = { country_code: cdr.country_code.toUpperCase(), party_id: cdr.party_id.toUpperCase() };
        if (await cdrs.insert(owner, cdr.id, cdr)) return;
        // The seed is applied at every start: the same CDR again is fine, another one under its id is not.
        if (!isDeepStrictEqual(await cdrs.get(owner, cdr.id), cdr))
          throw new Error(`CDR ${owner.country_code}/${owner.party_id}/${cdr.id} is already stored with other content; CDRs cannot be replaced`);
      },
    };
  },
};
