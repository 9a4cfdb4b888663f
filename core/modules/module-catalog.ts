import type { GatewayConfig } from "../../config/types";
import type { InterfaceRole, PartyRef } from "../protocol/types";
import type { ServedModule } from "./served-modules";
import { ownRoleOf211 } from "./served-modules";
import type { RepairSource } from "../model/repair";

/**
 * What the gateway serves, known once plugins and adapters are resolved.
 * Plugins that need it (credentials, to read a 2.1.1 partner's endpoints)
 * get this view instead of the host itself.
 */
export class ModuleCatalog {
  private modules: readonly ServedModule[] = [];

  constructor(private readonly config: GatewayConfig) {}

  set(served: readonly ServedModule[]): void {
    this.modules = served;
  }

  get served(): readonly ServedModule[] {
    return this.modules;
  }

  /**
   * A Location the gateway has, in canonical (2.3.0) form, read through the locations port of `role`: one of
   * our own (SENDER: `owner` is one of our parties; published or not, the caller decides who may see it) or a
   * partner's we hold (RECEIVER: pushed to us or pulled). Undefined when that port is not served or has no such
   * Location. The one way the gateway looks a Location up for another module's object (a CDR's repair, a 2.1.1
   * Session's embedded Location).
   */
  async location(role: InterfaceRole, owner: PartyRef, id: string): Promise<Record<string, unknown> | undefined> {
    const served = this.modules.find((s) => s.plugin.module === "locations" && s.role === role);
    if (!served) return undefined;
    const found =
      role === "SENDER"
        ? await (served.port as Partial<SenderLocations>).get?.(id, { party: owner })
        : await (served.port as Partial<ReceiverLocations>).get?.(owner, id, { party: served.parties[0] });
    return found ?? undefined;
  }

  /** A 2.1.1 partner's endpoint role for a module: the counterpart of ours. */
  partnerRoleOf211(module: string): InterfaceRole {
    return ownRoleOf211(this.modules, this.config, module) === "SENDER" ? "RECEIVER" : "SENDER";
  }
}

/** What `location` needs of the locations ports (plugins/locations/ports.ts), which core does not import. */
interface SenderLocations {
  get(id: string, ctx: { party: PartyRef }): Promise<Record<string, unknown> | undefined>;
}
interface ReceiverLocations {
  get(owner: PartyRef, id: string, ctx: { party: PartyRef }): Promise<Record<string, unknown> | undefined>;
}

/**
 * Locations the gateway holds, for CdrLocation fields a partner left out:
 * the partners' Locations, stored through our locations RECEIVER port
 * (pushed or pulled), looked up under the CDR's owner (ModuleCatalog.location);
 * nothing when no locations RECEIVER is served.
 */
export const heldLocationsOf = (catalog: ModuleCatalog): Pick<RepairSource, "heldLocation"> => ({
  heldLocation: (owner, locationId) => catalog.location("RECEIVER", owner, locationId),
});
