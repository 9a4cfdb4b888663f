import type { PageRequest } from "../../core/http/pagination";
import type { Page } from "../../core/http/pagination";
import type { PortContext, PutOutcome } from "../../core/ports";
import type { PartyRef } from "../../core/protocol/types";
import type { AuthorizationInfo, LocationReferences, Token, TokenRef } from "./model";

/**
 * Ports of the tokens module. Tokens are owned by the eMSP: the Sender port
 * serves our own party's tokens (`ctx.party`), the Receiver port keeps the
 * tokens partners' eMSPs push to us as a CPO.
 */

/** Outcome of a real-time authorization the sender port decided. */
export type AuthorizeOutcome =
  | { kind: "answered"; info: AuthorizationInfo }
  /** no such token: HTTP 404 with 2004 (2.2+) */
  | { kind: "unknown_token" }
  /** the eMSP needs LocationReferences to decide and none were given: 2002 */
  | { kind: "location_required"; reason: string };

export interface TokensSenderPort {
  list(page: PageRequest, ctx: PortContext): Promise<Page<Token>>;
  /** `location` is undefined when the request had no body */
  authorize(token: TokenRef, location: LocationReferences | undefined, ctx: PortContext): Promise<AuthorizeOutcome>;
}

/** Checks a merged PATCH result is still a valid Token; throws (nothing stored) when not. */
export type TokenCheck = (merged: Token) => void;

export interface TokensReceiverPort {
  get(owner: PartyRef, token: TokenRef, ctx: PortContext): Promise<Token | undefined>;
  put(owner: PartyRef, token: Token, ctx: PortContext): Promise<PutOutcome>;
  /** Applies the fragment's fields; false when there is no such token. `check` runs on the merged object before it is stored. */
  patch(owner: PartyRef, token: TokenRef, fragment: Partial<Token>, check: TokenCheck, ctx: PortContext): Promise<boolean>;
}
