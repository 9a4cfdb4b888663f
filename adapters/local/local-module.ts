import type { Store } from "../../core/store/port";

/**
 * One module's share of the `local` adapter: the ports it implements over
 * the gateway's store, and how it takes objects from the seed file.
 */
export interface LocalModule {
  /** key in the seed file, e.g. "locations" */
  readonly seedKey: string;
  readonly portNames: readonly string[];
  create(store: Store): LocalModulePorts;
}

export interface LocalModulePorts {
  ports: Record<string, unknown>;
  /** stores one seed object (2.3.0 form); throws with a clear message when it cannot */
  seed(object: Record<string, unknown>): Promise<void>;
}
