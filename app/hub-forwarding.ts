import type { Middleware } from "koa";
import type { GatewayConfig } from "../config/types";
import type { ModulePlugin, RouteSpec } from "../core/contract/module-plugin";
import type { InterfaceRole } from "../core/protocol/types";
import type { ServedModule } from "../core/modules/served-modules";
import type { BackgroundServices } from "../core/contract/background";
import { Forwarder, type ForwardingDeps } from "../core/hub/forwarder";
import { isHub } from "../core/hub/hub-config";
import { withForwardedEndpoints } from "../core/hub/forwarded-endpoints";
import type { StreamedGets } from "../core/host/forwarded-get";

/**
 * The forwarding middleware of a hub (core/hub/forwarder.ts) and its
 * forwarded GETs streamed before Koa (core/host/forwarded-get.ts), or
 * undefined when the gateway is none. Bodies and answers are translated with the
 * object types of the plugins' own routes, whether or not this gateway
 * serves the module itself; its version details list the modules it
 * forwards (core/hub/forwarded-endpoints.ts).
 */
export const hubForwarding = (
  config: GatewayConfig,
  deps: Omit<ForwardingDeps, "config" | "routesOf" | "pluginOf" | "store">,
  plugins: readonly ModulePlugin[],
  served: readonly ServedModule[],
  background: BackgroundServices,
): { middleware: Middleware; gets: StreamedGets } | undefined => {
  if (!isHub(config)) return undefined;
  const routes = new Map<string, readonly RouteSpec[]>();
  const routesOf = (module: string, role: InterfaceRole): readonly RouteSpec[] => {
    const key = `${module}.${role}`;
    let found = routes.get(key);
    if (!found) {
      const plugin = plugins.find((p) => p.module === module);
      const port = served.find((s) => s.plugin.module === module && s.role === role)?.port;
      try {
        // Only the routes' types are used: their handlers (and the port) are never called here.
        found = plugin && plugin.roles.includes(role) ? plugin.routes(role, port) : [];
      } catch {
        found = [];
      }
      routes.set(key, found);
    }
    return found;
  };
  const pluginOf = (module: string) => plugins.find((p) => p.module === module);
  const forwarder = new Forwarder({ config, routesOf, pluginOf, store: deps.connections.store, ...deps });
  background.add({
    name: "hub-forwarding",
    start: () => forwarder.relay.start(),
    stop: async () => {
      forwarder.relay.stop();
      forwarder.close();
    },
  });
  const forwarding = forwarder.middleware();
  const endpoints = withForwardedEndpoints(config, deps.registry, plugins);
  return { middleware: (ctx, next) => forwarding(ctx, () => endpoints(ctx, next)), gets: forwarder };
};
