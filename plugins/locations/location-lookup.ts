import type { InterfaceRole, PartyRef } from "../../core/protocol/types";
import type { ModuleCatalog } from "../../core/modules/module-catalog";
import type { Location } from "./model";
import type { LocationsReceiverPort, LocationsSenderPort } from "./ports";

/** Looks up one Location by its owner and id; undefined when there is none (or no such port is served). */
export type LocationLookup = (owner: PartyRef, locationId: string) => Promise<Location | undefined>;

/**
 * A Location the gateway has, in canonical (2.3.0) form, read through the locations port of `role` as the
 * catalog serves it: one of our own (SENDER: `owner` is one of our parties; published or not, the caller decides
 * who may see it) or a partner's we hold (RECEIVER: pushed to us or pulled). The one way another module's object
 * looks a Location up: a CDR's repair (the tolerant reader's held Locations, wired in app/gateway.ts), a 2.1.1
 * Session's embedded Location (plugins/sessions/session-location.ts). The catalog is read at each lookup, so a
 * lookup made before the served modules are known works once they are.
 */
export const locationLookup =
  (catalog: ModuleCatalog, role: InterfaceRole): LocationLookup =>
  async (owner, locationId) => {
    const served = catalog.served.find((s) => s.plugin.module === "locations" && s.role === role);
    if (!served) return undefined;
    const found =
      role === "SENDER"
        ? await (served.port as LocationsSenderPort).get(locationId, { party: owner })
        : await (served.port as LocationsReceiverPort).get(owner, locationId, { party: served.parties[0] });
    return found ?? undefined;
  };
