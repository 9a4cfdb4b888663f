import type { PageRequest } from "../../core/contract/page";
import type { Page } from "../../core/contract/page";
import type { PortContext } from "../../core/contract/port-context";
import type { UpdatablePort } from "../../core/modules/update-stored";
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

/**
 * Tokens stored by uid and type (`TokenRef`); a PATCH is the plugin's merge
 * and validity check over get and put, or the optional atomic `update`
 * (core/modules/update-stored.ts).
 */
export type TokensReceiverPort = UpdatablePort<TokenRef, Token>;
