import type { ChangeRule } from "../../core/modules/receiver-writes";
import type { Token } from "./model";
import { tokenObjectType } from "./translate";

/** A PATCH must leave a valid canonical Token (core/modules/receiver-writes.ts). */
export const TOKEN_CHANGES: ChangeRule<Token> = { type: tokenObjectType };

/**
 * A Token PATCH as a change of the stored Token: the fragment's fields
 * replace the stored ones. Pure, so an adapter's atomic update may retry it;
 * whether the result may be stored is TOKEN_CHANGES' to say.
 */
export const patchedToken =
  (fragment: Partial<Token>) =>
  (current: Token): Token =>
    ({ ...current, ...fragment }) as Token;
