import type { GatewayConfig, PartyConfig } from "../../config/types";
import type { ServedModule } from "../modules/served-modules";
import type { SyncSpec } from "../contract/sync-spec";

/** Where pulled objects of one module go: the plugin's sync spec and the RECEIVER port we serve. */
export interface SyncTarget {
  spec: SyncSpec;
  port: unknown;
  /** our party that receives the objects (the port context's party) */
  party: PartyConfig;
}

/** The sync target of `module`, or undefined when its plugin has no sync spec or we serve no RECEIVER for it. */
export const syncTargetOf = (served: readonly ServedModule[], module: string): SyncTarget | undefined => {
  const receiver = served.find((s) => s.plugin.module === module && s.role === "RECEIVER" && s.plugin.syncSpec);
  return receiver && { spec: receiver.plugin.syncSpec!, port: receiver.port, party: receiver.parties[0] };
};

/** Modules that can be pulled: the answer to a config or request naming another. */
export const syncableModules = (served: readonly ServedModule[]): string[] =>
  served.filter((s) => s.role === "RECEIVER" && s.plugin.syncSpec).map((s) => s.plugin.module);

/** `partners[].sync` entries naming a module that cannot be pulled, in the config's `path: message` form. */
export const syncConfigErrors = (config: GatewayConfig, served: readonly ServedModule[]): string[] => {
  const errors: string[] = [];
  const available = syncableModules(served).join(", ") || "none";
  config.partners.forEach((partner, i) => {
    for (const module of Object.keys(partner.sync ?? {})) {
      const target = syncTargetOf(served, module);
      const refusal = target?.spec.refuses?.(partner);
      if (!target)
        errors.push(`partners[${i}].sync.${module}: no ${module} RECEIVER with sync support is served, so nothing could store the pull (syncable: ${available})`);
      else if (refusal) errors.push(`partners[${i}].sync.${module}: partner ${partner.id} ${refusal}`);
    }
  });
  return errors;
};
