import { randomBytes } from "node:crypto";
import type { Store, StoreGuard } from "../contract/store";
import type { SharedReads } from "../contract/store";

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
 * waits for the next one. On one Redis (not a cluster) the read is one of
 * the store's shared reads (SharedReads in core/store/shared-reads.ts): the
 * same batching, and the response cache's generation tokens read on the
 * same round trip; a busy instance uses a read for `store.generation_lease_ms`
 * (its lease, 5 ms by default), and a renewal waits out the other instances'
 * leases before it settles.
 */
export class RegistrationGeneration {
  private next?: Promise<string>;
  private readonly shared?: SharedReads;
  /** the shared read of the current batch and its answer as a token (one promise per batch, not per request) */
  private batch?: { read: Promise<string | undefined>; token: Promise<string> };

  /** the token last read now (`now`), under the store's change mark taken before it was read */
  private marked?: { mark: string; token: string };

  constructor(private readonly store: Store) {
    this.shared = store.sharedReads;
  }

  /**
   * The current generation without waiting, where the store tells at once that nothing was written since it
   * was last read (ChangeMarks: the SQLite store), or where what `read` answers now is in already (`held`);
   * undefined where it cannot (a cluster, no lease or its answer still on its way, an open transaction, an
   * error): then `read`. The mark is taken before the entry is read, so a renewal committed by any instance
   * before this call is seen, as by `read`, which starts after its callers asked.
   */
  now(): string | undefined {
    if (this.shared) return this.held();
    const marks = this.store.changeMarks;
    const mark = marks?.mark();
    if (mark === undefined) return undefined;
    if (this.marked?.mark === mark) return this.marked.token;
    const read = marks!.getNow<string>(REGISTRATION_GENERATION, KEY);
    if (!read) return undefined;
    this.marked = { mark, token: present(read.value) };
    return this.marked.token;
  }

  /**
   * What `read` answers now when this process holds it without reading anything: on one Redis, a leased
   * batch's answer that came in (SharedReads.heldGet, under the leases' rules); undefined elsewhere.
   */
  held(): string | undefined {
    const held = this.shared?.heldGet<string>(REGISTRATION_GENERATION, KEY);
    return held && present(held.value);
  }

  read(): Promise<string> {
    if (this.shared) {
      const read = this.shared.get<string>(REGISTRATION_GENERATION, KEY);
      if (this.batch?.read !== read) this.batch = { read, token: read.then(present) };
      return this.batch.token;
    }
    this.next ??= new Promise<string>((resolve, reject) =>
      setImmediate(() => {
        this.next = undefined;
        this.store.get<string>(REGISTRATION_GENERATION, KEY).then((token) => resolve(token ?? ABSENT), reject);
      }),
    );
    return this.next;
  }

  /** The store entry that holds `token` while it is the current generation; none for the absent one (a fresh store). */
  guard(token: string): StoreGuard | undefined {
    return token === ABSENT ? undefined : { collection: REGISTRATION_GENERATION, key: KEY, value: token };
  }

  /** Settles once every instance refuses what the generation replaced: on one Redis, when the read leases taken before it have ended (SharedReads); on SQLite, `now` reads it again once it is committed (ChangeMarks). */
  async renew(): Promise<void> {
    const write = () => this.store.put(REGISTRATION_GENERATION, KEY, randomBytes(9).toString("base64url"));
    await (this.shared ? this.shared.writing(write) : write());
  }
}

const present = (token: string | undefined): string => token ?? ABSENT;
