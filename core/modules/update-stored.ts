import type { PartyRef } from "../protocol/types";
import type { PortContext, PutOutcome } from "../contract/port-context";

/**
 * The part of a Receiver port a change of one stored object needs: `get` and
 * `put`, which every backend offers, and, as a capability, an atomic `update`
 * that applies a pure `change` to the current object and may retry it (a store
 * with compare-and-set). A backend reached over REST leaves `update` out.
 */
export interface UpdatablePort<Key, T> {
  get(owner: PartyRef, key: Key, ctx: PortContext): Promise<T | undefined>;
  put(owner: PartyRef, object: T, ctx: PortContext): Promise<PutOutcome>;
  /**
   * Replaces the stored object by `change(current)` in one atomic step. `change` may throw (nothing is
   * stored) and may run more than once, so it must be pure. Undefined when there is no such object.
   */
  update?(owner: PartyRef, key: Key, change: (current: T) => T, ctx: PortContext): Promise<T | undefined>;
}

/**
 * Replaces the stored object by `change(current)`, the module's PATCH rules
 * (merge, validity check) applied by the plugin, whatever the backend. With
 * the port's `update` the change is atomic. Without it this is get, change,
 * put: a write that lands between the get and the put (a second partner
 * pushing the same object, a sync pull, the backend itself) is overwritten,
 * so the last writer wins and the other change is lost. Pushes of one
 * object come from its one owner, in order, which makes that rare; a
 * backend that needs more offers `update`. Undefined when there is no such object.
 */
export const updateStored = async <Key, T>(
  port: UpdatablePort<Key, T>,
  owner: PartyRef,
  key: Key,
  change: (current: T) => T,
  ctx: PortContext,
): Promise<T | undefined> => {
  if (port.update) return port.update(owner, key, change, ctx);
  const current = await port.get(owner, key, ctx);
  if (current === undefined) return undefined;
  const changed = change(current);
  await port.put(owner, changed, ctx);
  return changed;
};
