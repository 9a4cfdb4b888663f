import type { ModulePlugin } from "../contract/module-plugin";
import type { ObjectType } from "../contract/object-type";
import type { VersionNumber } from "../protocol/types";
import type { QueuedObject, QueuedObjects, QueuedTarget } from "../client/outbound-request";
import { changeObjectOf, type PushSpec } from "../contract/push-spec";

/**
 * How the outbox renders the canonical objects it queued (PartnerClient.send), from the push specs of every plugin,
 * whether this gateway serves the module or not: a hub broadcasts Locations, Tariffs and Tokens it does not serve. An
 * object's type is the one its module's push spec gives for its path (`changeObjectOf`), as when a change is fanned
 * out; a push's receiver path and query are the spec's `target` for the partner's version at delivery.
 */
export class PushedObjects implements QueuedObjects {
  private readonly specs: ReadonlyMap<string, PushSpec>;

  constructor(plugins: readonly ModulePlugin[]) {
    this.specs = new Map(plugins.flatMap((p) => (p.pushSpec ? [[p.module, p.pushSpec as PushSpec] as const] : [])));
  }

  typeOf(module: string, object: QueuedObject): ObjectType<any> | undefined {
    const spec = this.specs.get(module);
    return spec && changeObjectOf(spec, object)?.type;
  }

  targetOf(module: string, object: QueuedObject, version: VersionNumber): QueuedTarget | undefined {
    const spec = this.specs.get(module);
    if (!spec?.target || !object.kind) return undefined;
    return spec.target({ module, owner: object.owner, path: object.path, kind: object.kind, object: object.value as Record<string, unknown> }, version);
  }
}
