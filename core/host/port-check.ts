import type { GatewayConfig } from "../../config/types";
import type { ModulePlugin } from "../contract/module-plugin";
import type { Adapter } from "../contract/adapter";
import { changesPortName } from "../contract/push-spec";
import { partyRoutesOf } from "../modules/served-modules";

/** What the kernel calls on a `<module>.CHANGES` port (core/contract/push-spec.ts). */
const CHANGES_PORT_METHODS: readonly string[] = ["apply"];

/**
 * Checks, once the adapters exist and before any starts, that every port an
 * adapter hands a module implements every method its plugin needs
 * (`ModulePlugin.portMethods`), and a CHANGES port its `apply`: an adapter
 * missing one is refused at start instead of failing a partner's request
 * later. Returns every problem, in the config's `path: message` form.
 */
export const portProblems = (config: GatewayConfig, plugins: readonly ModulePlugin[], adapters: ReadonlyMap<string, Adapter>): string[] => {
  const problems: string[] = [];
  for (const [module, route] of Object.entries(config.modules)) {
    const plugin = plugins.find((p) => p.module === module);
    if (!plugin) continue;
    // the module's adapter and each adapter a party of it is routed to (`modules.<id>.parties`)
    for (const name of new Set([route.adapter, ...partyRoutesOf(config, route).map((r) => r.adapter)]))
      problems.push(...portProblemsOf(module, plugin, name, adapters.get(name)));
  }
  return problems;
};

/** The problems of one adapter's ports for one module. */
const portProblemsOf = (module: string, plugin: ModulePlugin, name: string, adapter: Adapter | undefined): string[] => {
  if (!adapter) return [];
  const problems: string[] = [];
  const needs: [string | undefined, readonly string[]][] = plugin.roles.map((role) => [plugin.portName(role), plugin.portMethods?.[role] ?? []]);
  if (plugin.pushSpec) needs.push([changesPortName(module), CHANGES_PORT_METHODS]);
  for (const [portName, methods] of needs) {
    const port = portName ? adapter.ports[portName] : undefined;
    if (port === undefined) continue;
    for (const method of methods)
      if (typeof (port as Record<string, unknown>)[method] !== "function")
        problems.push(`modules.${module}: adapter "${name}" port ${portName} lacks ${method}()`);
  }
  return problems;
};
