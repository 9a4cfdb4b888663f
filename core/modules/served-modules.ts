import type { GatewayConfig, ModuleRouteConfig, PartyConfig } from "../../config/types";
import type { ModulePlugin } from "../contract/module-plugin";
import type { Adapter, AdapterFactory } from "../contract/adapter";
import type { InterfaceRole, VersionNumber } from "../protocol/types";
import { partyKey } from "../protocol/types";
import { partyPorts, type PartyPort } from "./party-ports";

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
    for (const role of route.roles ?? plugin.roles)
      if (!plugin.roles.includes(role)) errors.push(`modules.${module}.roles: module "${module}" has no ${role} interface`);
    for (const { adapter, path } of adapterRoutesOf(module, route)) {
      const factory = factories.find((f) => f.type === adapterTypeOf(config, adapter));
      if (!factory) {
        errors.push(`${path}: unknown adapter "${adapter}" (available: ${factories.map((f) => f.type).join(", ")})`);
        continue;
      }
      for (const role of (route.roles ?? plugin.roles).filter((r) => plugin.roles.includes(r))) {
        const port = plugin.portName(role);
        if (port && !factory.portNames.includes(port)) errors.push(`${path.replace(/\.adapter$/, "")}: adapter "${adapter}" does not implement ${port}`);
      }
    }
  }
  // Each adapter's own settings, once per adapter the modules route to.
  for (const name of routedAdapterNames(config)) {
    const factory = factories.find((f) => f.type === adapterTypeOf(config, name));
    if (factory?.checkSettings) errors.push(...factory.checkSettings(config.adapters[name] ?? {}, `adapters.${name}`));
  }
  return errors;
};

/** The adapters a module's route names, each with where the config names it: the module's own, and each party's of its own. */
const adapterRoutesOf = (module: string, route: ModuleRouteConfig): { adapter: string; path: string }[] => {
  const routes = [{ adapter: route.adapter, path: `modules.${module}.adapter` }];
  (route.parties ?? []).forEach((item, i) => {
    if (typeof item !== "string" && item.adapter !== route.adapter) routes.push({ adapter: item.adapter, path: `modules.${module}.parties[${i}].adapter` });
  });
  return routes;
};

/** Every adapter the modules route to (the gateway creates these), in config order. */
export const routedAdapterNames = (config: GatewayConfig): Set<string> =>
  new Set(Object.entries(config.modules).flatMap(([module, route]) => adapterRoutesOf(module, route).map((r) => r.adapter)));

/** The parties a module serves, each with the adapter serving it: `modules.<id>.parties` in order, else all of `parties` on the module's adapter. */
export const partyRoutesOf = (config: GatewayConfig, route: ModuleRouteConfig): { party: PartyConfig; adapter: string }[] => {
  if (!route.parties) return config.parties.map((party) => ({ party, adapter: route.adapter }));
  return route.parties.flatMap((item) => {
    const ref = typeof item === "string" ? item : item.party;
    const party = config.parties.find((p) => partyKey(p) === ref);
    return party ? [{ party, adapter: typeof item === "string" ? route.adapter : item.adapter }] : [];
  });
};

/**
 * The port of the adapter a module is routed to, for one interface role,
 * whether or not that interface is offered to partners (`modules.<id>.roles`
 * only decides what partners reach): change events about our own data are
 * stored through the RECEIVER port of a module served only as SENDER. A
 * module whose parties are served by different adapters gets one port that
 * hands each call to its party's (party-ports.ts).
 * Undefined when an adapter lacks the port.
 */
export const adapterPortOf = (
  config: GatewayConfig,
  adapters: ReadonlyMap<string, Adapter>,
  plugin: ModulePlugin,
  role: InterfaceRole,
): unknown => {
  const route = config.modules[plugin.module];
  const portName = plugin.portName(role);
  if (!route || !portName) return undefined;
  const ports = partyRoutesOf(config, route).map(({ party, adapter }) => ({ party, port: adapters.get(adapter)?.ports[portName] }));
  if (ports.length === 0 || ports.some((p) => p.port === undefined)) return undefined;
  // One adapter for all: its port as it is (adapters with one party of their own, steve's or tms's, ignore ctx.party)
  if (new Set(ports.map((p) => p.port)).size === 1) return ports[0].port;
  return partyPorts(ports as PartyPort[]);
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
    const parties = route ? partyRoutesOf(config, route).map((r) => r.party) : config.parties;
    for (const role of route?.roles ?? plugin.roles) {
      const port = adapterPortOf(config, adapters, plugin, role);
      if (plugin.portName(role) && port === undefined) continue;
      served.push({ plugin, role, port, parties, versions: plugin.versions });
    }
  }
  return served;
};

/** Our interface role for a module in 2.1.1, which lists one URL per module: the data owner serves the sender side. */
export const ownRoleOf211 = (served: readonly ServedModule[], config: GatewayConfig, module: string): InterfaceRole => {
  const plugin = served.find((s) => s.plugin.module === module)?.plugin;
  const ourRoles = config.parties.map((p) => p.role);
  if (!plugin?.dataOwner) return "SENDER";
  return ourRoles.includes(plugin.dataOwner) ? "SENDER" : "RECEIVER";
};
