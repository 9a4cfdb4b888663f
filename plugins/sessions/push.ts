import { APPLIED, unknownObject, unsupportedChange, type PushSpec } from "../../core/contract/push-spec";
import type { SessionsReceiverPort, SessionsSenderPort } from "./ports";
import type { Session, SessionPatch } from "./model";
import { applySessionPatch } from "./patch";
import type { DataChange } from "../../core/contract/change-feed";
import { sessionType } from "./translate";
import type { PartyRef } from "../../core/protocol/types";
import { tokenOwnerOf } from "./token-owner";
import { updateStored } from "../../core/modules/update-stored";

/** A session that reached its end: the eMSP must see it even after a long outage. */
const isFinal = (change: DataChange): boolean => change.object?.status === "COMPLETED" || change.object?.status === "INVALID";

/**
 * Our sessions to partners' Receivers: PUT whole, PATCH a fragment (its
 * charging_periods are appended, so PATCHes never collapse). Final
 * sessions are delivered at least once. Only to the partner of the token's
 * owner: from the session when it comes whole, else from the stored one,
 * read with `stored` (our SENDER port, which a CPO always serves). A
 * resync's sessions get their Location with `withLocations`, as changes do
 * on the ChangeFeed (SessionLocations.onChange).
 */
export const sessionsPush = (
  stored: (owner: PartyRef, id: string) => Promise<Session | undefined>,
  withLocations: (sessions: Session[]) => Promise<Session[]>,
): PushSpec<SessionsReceiverPort, SessionsSenderPort> => ({
  objectTypes: [sessionType],
  idFields: ["id"],
  methods: { upsert: "PUT", patch: "PATCH" },
  essential: isFinal,
  resync: true,
  /** a resync's sessions carry their Location, for 2.1.1 partners (session-location.ts) */
  async resyncPage(sender, page, ctx) {
    const answer = await sender.list(page, ctx);
    return { ...answer, items: await withLocations(answer.items) };
  },
  async audience(change) {
    const session = (change.object?.cdr_token ? change.object : await stored(change.owner, change.path[0])) as Session | undefined;
    return session && tokenOwnerOf(session);
  },
  async apply(receiver, change, ctx) {
    const [id] = change.path;
    if (change.kind === "upsert") {
      await receiver.put(change.owner, change.object as unknown as Session, ctx);
      return APPLIED;
    }
    if (change.kind === "patch") {
      const patched = await updateStored(receiver, change.owner, id, (current) => applySessionPatch(current, change.object as SessionPatch), ctx);
      return patched ? APPLIED : unknownObject(`Session ${id}`);
    }
    return unsupportedChange(change);
  },
});
