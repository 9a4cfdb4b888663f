/**
 * A value read at most once per `ttlMs` per key: whether a receiver is
 * OFFLINE, which the hub looks up on every forwarded request, changes
 * seldom, and reading it from the store each time was a tenth of a
 * forwarded request's CPU with the registrations (bench "Hub forwarding";
 * those are now the registry's, per registration generation). A change
 * reaches forwarding within `ttlMs`.
 */
export class Recent<T> {
  private readonly values = new Map<string, { value: Promise<T>; until: number; settled?: T }>();

  constructor(private readonly ttlMs: number) {}

  get(key: string, read: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const known = this.values.get(key);
    if (known && known.until > now) return known.value;
    const value = read();
    const entry: { value: Promise<T>; until: number; settled?: T } = { value, until: now + this.ttlMs };
    this.values.set(key, entry);
    // a failed read is not remembered
    value.then(
      (settled) => (entry.settled = settled),
      () => this.values.delete(key),
    );
    return value;
  }

  /** The value while it is remembered and read (no promise to wait for); undefined otherwise. */
  known(key: string): T | undefined {
    const known = this.values.get(key);
    return known && known.until > Date.now() ? known.settled : undefined;
  }

  forget(key: string): void {
    this.values.delete(key);
  }
}
