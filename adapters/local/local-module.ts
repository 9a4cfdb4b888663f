import type { AdapterDeps, ChangeFeed, PartyRef, PortMap, PortName, Store } from "../kit";
import type { Logger } from "pino";

/** What a module may use besides the store: the adapter's settings (`adapters.local`), the logger and our own parties. */
export interface LocalModuleContext {
  settings: Record<string, unknown>;
  log: Logger;
  parties: readonly PartyRef[];
  /** where changes of our own data the module makes itself are reported (payments: a terminal it activated) */
  changes?: ChangeFeed;
  /** the 2.3.0 check of a module's objects taken from the settings (bookings: `adapters.local.bookings`) */
  validateCanonical?: AdapterDeps["validateCanonical"];
}

/**
 * One module's share of the `local` adapter: the ports it implements over
 * the gateway's store, and how it takes objects from the seed file.
 */
export interface LocalModule {
  /** key in the seed file, e.g. "locations" */
  readonly seedKey: string;
  readonly portNames: readonly PortName[];
  /** `context` is always given by the adapter factory; modules that need none take the store alone */
  create(store: Store, context?: LocalModuleContext): LocalModulePorts;
}

export interface LocalModulePorts {
  ports: Partial<PortMap>;
  /** stores one seed object (2.3.0 form); throws with a clear message when it cannot */
  seed(object: Record<string, unknown>): Promise<void>;
  /** when the adapter stops (the simulated charge point's timers) */
  stop?(): void;
}
