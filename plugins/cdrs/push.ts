import { isDeepStrictEqual } from "node:util";
import { APPLIED, unsupportedChange, type PushSpec } from "../../core/contract/push-spec";
import type { CdrsReceiverPort } from "./ports";
import type { Cdr } from "./model";
import { cdrType } from "./translate";
import { tokenOwnerOf } from "../sessions/token-owner";

/**
 * Our CDRs to partners' Receivers: POST to the module URL, delivered at
 * least once (the receiver answers an identical re-POST with success), so
 * never dropped and never part of a resync. Only to the partner of the
 * token's owner: a CDR always comes whole, so the owner is in it.
 */
export const CDRS_PUSH: PushSpec<CdrsReceiverPort> = {
  objectTypes: [cdrType],
  idFields: ["id"],
  methods: { upsert: "POST" },
  target: () => ({ path: "" }),
  essential: () => true,
  resync: false,
  audience: async (change) => (change.object ? tokenOwnerOf(change.object as unknown as Cdr) : undefined),
  async apply(receiver, change, ctx) {
    if (change.kind !== "upsert") return unsupportedChange(change);
    const cdr = change.object as unknown as Cdr;
    if (await receiver.insert(change.owner, cdr, ctx)) return APPLIED;
    // The backend retrying an event we took: pushed again (receivers take an identical CDR again), so nothing is lost.
    if (isDeepStrictEqual(await receiver.get(change.owner, cdr.id, ctx), cdr)) return APPLIED;
    return { applied: false, reason: `CDR ${cdr.id} already exists with other content; CDRs cannot be replaced (send a credit CDR)` };
  },
};
