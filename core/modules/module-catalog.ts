import type { GatewayConfig } from "../../config/types";
import type { InterfaceRole } from "../protocol/types";
import type { ServedModule } from "./served-modules";
import { ownRoleOf211 } from "./served-modules";

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

  /** A 2.1.1 partner's endpoint role for a module: the counterpart of ours. */
  partnerRoleOf211(module: string): InterfaceRole {
    return ownRoleOf211(this.modules, this.config, module) === "SENDER" ? "RECEIVER" : "SENDER";
  }
}
