import { randomBytes } from "node:crypto";

const TOKEN_BYTES = 6;
/** Random bytes drawn for many tokens at once: every Redis read of generations offers a fresh token per key (kept only where none is stored). */
const POOL_BYTES = TOKEN_BYTES * 512;
let pool = Buffer.alloc(0);
let used = 0;

export const freshToken = (): string => {
  if (used + TOKEN_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  return pool.toString("base64url", used, (used += TOKEN_BYTES));
};

/**
 * This process's view of the generation tokens that cache keys are built
 * on: one per module and one per module and party. Invalidating renews a
 * token, which orphans every entry stored under the old one. With Redis the
 * tokens are shared and this view follows them; without Redis (or while it
 * is unreachable) the view alone decides.
 */
export class Generations {
  private readonly tokens = new Map<string, string>();
  // Counts local renewals, so a token read from Redis before a renewal cannot overwrite it afterwards.
  private readonly epochs = new Map<string, number>();

  token(name: string): string {
    let token = this.tokens.get(name);
    if (token === undefined) {
      token = freshToken();
      this.tokens.set(name, token);
    }
    return token;
  }

  epoch(name: string): number {
    return this.epochs.get(name) ?? 0;
  }

  renew(name: string): void {
    this.tokens.set(name, freshToken());
    this.epochs.set(name, this.epoch(name) + 1);
  }

  /** Takes over the shared token read from Redis, unless `name` was renewed here since `epoch` was read. */
  adopt(name: string, token: string, epoch: number): void {
    if (this.epoch(name) === epoch) this.tokens.set(name, token);
  }
}
