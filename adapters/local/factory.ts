import { readFile } from "node:fs/promises";
import path from "node:path";
import { defineAdapter, type Adapter, type PortMap } from "../kit";
import type { LocalModule } from "./local-module";

/**
 * The `local` adapter: every module's ports over the gateway's own store.
 * It is the embedded default, and the receiver-side store of an eMSP that
 * keeps partner data. `adapters.local.seed` names a JSON file
 * `{ "locations": [], "tariffs": [], "sessions": [], "cdrs": [], "tokens": [] }`
 * (2.3.0 form) loaded at start. Change events about our own data
 * (POST /admin/v1/events) reach it through its RECEIVER ports.
 */
export const createLocalAdapterFactory = (modules: readonly LocalModule[]) => defineAdapter({
  type: "local",
  portNames: modules.flatMap((m) => m.portNames),
  async create(settings, { store, log, config, validateCanonical, changes }): Promise<Adapter> {
    const parts = modules.map((m) => ({ module: m, ...m.create(store, { settings, log, parties: config.parties, changes, validateCanonical }) }));
    const ports: Partial<PortMap> = Object.assign({}, ...parts.map((p) => p.ports));
    const seedFile = typeof settings.seed === "string" ? settings.seed : undefined;
    return {
      ports,
      async stop() {
        for (const part of parts) part.stop?.();
      },
      async start() {
        if (!seedFile) return;
        const seed = JSON.parse(await readFile(path.resolve(seedFile), "utf8")) as Record<string, unknown>;
        for (const part of parts) {
          const objects = seed[part.module.seedKey];
          if (objects === undefined) continue;
          if (!Array.isArray(objects)) throw new Error(`adapters.local.seed: "${part.module.seedKey}" must be an array`);
          for (const [index, object] of objects.entries()) {
            try {
              const problems = validateCanonical(part.module.seedKey, object);
              if (problems.length) throw new Error(`not a valid 2.3.0 object: ${problems.join("; ")}`);
              await part.seed(object as Record<string, unknown>);
            } catch (error) {
              throw new Error(`adapters.local.seed: ${part.module.seedKey}[${index}]: ${(error as Error).message}`);
            }
          }
        }
      },
    };
  },
});
