import type { Token } from "./model";

/**
 * A Token PATCH as a change of the stored Token: the fragment's fields
 * replace the stored ones, and `check` (the result must still be a valid
 * Token) throws when it may not be stored. Pure, so an adapter's atomic
 * update may retry it.
 */
export const patchedToken =
  (fragment: Partial<Token>, check: (merged: Token) => void) =>
  (current: Token): Token => {
    const merged = { ...current, ...fragment } as Token;
    check(merged);
    return merged;
  };
