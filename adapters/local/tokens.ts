import { randomUUID } from "node:crypto";
import { parseDateTime, type AuthorizeOutcome, type PartyRef, type Store, type Token, type TokenRef, type TokensReceiverPort, type TokensSenderPort } from "../kit";
import type { LocalModule } from "./local-module";
import { OwnedCollection } from "./owned-collection";

/**
 * Token identity is uid + type (OCPI 2.2.1 Tokens module): the same uid may exist as
 * RFID and as APP_USER. The uid is a CiString: OwnedCollection matches the
 * whole key case-insensitively.
 */
const keyOf = (ref: TokenRef): string => `${ref.uid}:${ref.type}`;

/**
 * The tokens module of the `local` adapter. One collection, scoped by owner:
 * tokens partners push to us (receiver) live under the partner's party, our
 * own tokens (sender, seeded) under ours.
 *
 * Authorization rule of this adapter (a stand-in for an eMSP back office):
 * unknown token → unknown; valid=false → BLOCKED; whitelist NEVER without
 * LocationReferences → location required (2002), because such a token is
 * only ever authorized for a concrete location; otherwise ALLOWED with a
 * fresh authorization_reference. Given LocationReferences are echoed in
 * `location` (every EVSE is allowed; there is no location data to check).
 */
export const localTokens: LocalModule = {
  seedKey: "tokens",
  portNames: ["tokens.SENDER", "tokens.RECEIVER"],
  create(store: Store) {
    const tokens = new OwnedCollection<Token>(store, "tokens");

    const sender: TokensSenderPort = {
      list: (page, ctx) => tokens.list(ctx.party, page),
      async authorize(ref, location, ctx): Promise<AuthorizeOutcome> {
        const token = await tokens.get(ctx.party, keyOf(ref));
        if (!token) return { kind: "unknown_token" };
        if (!token.valid) return { kind: "answered", info: { allowed: "BLOCKED", token, ...(location ? { location } : {}) } };
        if (token.whitelist === "NEVER" && !location)
          return { kind: "location_required", reason: "This token is authorized per location: LocationReferences are required" };
        return {
          kind: "answered",
          info: { allowed: "ALLOWED", token, authorization_reference: randomUUID(), ...(location ? { location } : {}) },
        };
      },
    };

    const receiver: TokensReceiverPort = {
      get: (owner, ref) => tokens.get(owner, keyOf(ref)),
      put: (owner, token) => tokens.put(owner, keyOf(token), token),
      update: (owner, ref, change) => tokens.modify(owner, keyOf(ref), change),
    };

    return {
      ports: { "tokens.SENDER": sender, "tokens.RECEIVER": receiver },
      async seed(object) {
        const token = object as Token;
        for (const field of ["country_code", "party_id", "uid", "type", "last_updated"] as const)
          if (typeof token[field] !== "string") throw new Error(`token ${String(token.uid)}: ${field} must be a string`);
        if (parseDateTime(token.last_updated) === undefined) throw new Error(`token ${token.uid}: last_updated is not an OCPI DateTime`);
        const owner: PartyRef = { country_code: token.country_code, party_id: token.party_id };
        await tokens.put(owner, keyOf(token), token);
      },
    };
  },
};
