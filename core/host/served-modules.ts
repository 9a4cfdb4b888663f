import type { GatewayConfig, PartyConfig } from "../../config/types";
import type { Adapter, AdapterFactory, ModulePlugin } from "../plugin";
import type { InterfaceRole, VersionNumber } from "../protocol/types";
import { partyKey } from "../protocol/types";

/** One (module, interface role) the gateway serves, with the port implementation behind it. */
export interface ServedModule {
  plugin: ModulePlugin;
  role: InterfaceRole;
  port: unknown;
  parties: PartyConfig[];
  versions: readonly VersionNumber[];
}

export const adapterTypeOf = (config: GatewayConfig, adapterName: string): string => {
  const settings = config.adapters[adapterName];
  return typeof settings?.type === "string" ? settings.type : adapterName;
};

/**
 * Checks that every module the config asks for is served by a plugin and
 * routed to an adapter able to implement it, before anything starts. Returns
 * every problem, in the config's `path: message` form.
 */
export const checkModuleRouting = (
  config: GatewayConfig,
  plugins: readonly ModulePlugin[],
  factories: readonly AdapterFactory[],
): string[] => {
  const errors: string[] = [];
  for (const [module, route] of Object.entries(config.modules)) {
    const plugin = plugins.find((p) => p.module === module);
    if (!plugin) {
      errors.push(`modules.${module}: no plugin serves module "${module}" (available: ${plugins.map((p) => p.module).join(", ")})`);
      continue;
    }
    const type = adapterTypeOf(config, route.adapter);
    const factory = factories.find((f) => f.type === type);
    if (!factory) {
      errors.push(`modules.${module}.adapter: unknown adapter "${route.adapter}" (available: ${factories.map((f) => f.type).join(", ")})`);
      continue;
    }
    for (const role of route.roles ?? plugin.roles) {
      const port = plugin.portName(role);
      if (!plugin.roles.includes(role)) errors.push(`modules.${module}.roles: module "${module}" has no ${role} interface`);
      else if (port && !factory.portNames.includes(port))
        errors.push(`modules.${module}: adapter "${route.adapter}" does not implement ${port}`);
    }
  }
  // Each adapter's own settings, once per adapter the modules route to.
  for (const name of new Set(Object.values(config.modules).map((m) => m.adapter))) {
    const factory = factories.find((f) => f.type === adapterTypeOf(config, name));
    if (factory?.checkSettings) errors.push(...factory.checkSettings(config.adapters[name] ?? {}, `adapters.${name}`));
  }
  return errors;
};

/**
 * The port of the adapter a module is routed to, for one interface role,
 * whether or not that interface is offered to partners (`modules.<id>.roles`
 * only decides what partners reach): change events about our own data are
 * stored through the RECEIVER port of a module served only as SENDER.
 */
export const adapterPortOf = (
  config: GatewayConfig,
  adapters: ReadonlyMap<string, Adapter>,
  plugin: ModulePlugin,
  role: InterfaceRole,
): unknown => {
  const route = config.modules[plugin.module];
  const portName = plugin.portName(role);
  return route && portName ? adapters.get(route.adapter)?.ports[portName] : undefined;
};

/** The served (module, role) list, once adapters exist. Roles the adapter cannot serve are left out when none were asked for. */
export const resolveServedModules = (
  config: GatewayConfig,
  plugins: readonly ModulePlugin[],
  adapters: ReadonlyMap<string, Adapter>,
): ServedModule[] => {
  const served: ServedModule[] = [];
  for (const plugin of plugins) {
    const route = config.modules[plugin.module];
    const needsAdapter = plugin.roles.some((r) => plugin.portName(r) !== undefined);
    if (needsAdapter && !route) continue;
    const parties = route?.parties
      ? config.parties.filter((p) => route.parties!.includes(partyKey(p)))
      : config.parties;
    for (const role of route?.roles ?? plugin.roles) {
      const port = adapterPortOf(config, adapters, plugin, role);
      if (plugin.portName(role) && port === undefined) continue;
      served.push({ plugin, role, port, parties, versions: plugin.versions });
    }
  }
  return served;
};
