import { randomBytes } from "node:crypto";
import type { Store } from "../store/port";

/** Store collection of the one entry below: a random token renewed by every write of partners or tokens. */
export const REGISTRATION_GENERATION = "partners:generation";
const KEY = "current";
/** What a store without the entry (new, or a Redis that lost its data) reads as: never equal to a written token. */
const ABSENT = "-";

/**
 * The store's generation of partner registrations and tokens: every write
 * of the `partners` and `token-index` collections (by any process or
 * instance on the store) renews it afterwards, so what this process keeps of
 * them in memory is good exactly while the generation it was read under is
 * still the store's. Tokens are random, never counters, so a store that lost
 * its data cannot come back to an old generation.
 *
 * Reads are shared by the requests that arrive together: a read starts in
 * the check phase after the I/O that brought them, so it always starts after
 * each of its requests arrived and sees every write that completed before
 * then (on another instance too). A request arriving once a read has started
 * waits for the next one.
 */
export class RegistrationGeneration {
  private next?: Promise<string>;

  constructor(private readonly store: Store) {}

  read(): Promise<string> {
    this.next ??= new Promise<string>((resolve, reject) =>
      setImmediate(() => {
        this.next = undefined;
        this.store.get<string>(REGISTRATION_GENERATION, KEY).then((token) => resolve(token ?? ABSENT), reject);
      }),
    );
    return this.next;
  }

  async renew(): Promise<void> {
    await this.store.put(REGISTRATION_GENERATION, KEY, randomBytes(9).toString("base64url"));
  }
}
