import "reflect-metadata";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { container as rootContainer, type DependencyContainer, type InjectionToken } from "tsyringe";
import type Koa from "koa";
import type { Logger } from "pino";
import { DEFAULT_INBOUND, type GatewayConfig } from "../config/types";
import type { ModulePlugin } from "../core/contract/module-plugin";
import type { Adapter, AdapterDeps, AdapterFactory } from "../core/contract/adapter";
import type { Store } from "../core/contract/store";
import { TOKENS } from "../core/contract/injection-tokens";
import { openStore } from "../core/store/open-store";
import { createLogger } from "../core/logging/logger";
import { PartnerRegistry } from "../core/partners/partner-registry";
import { OcpiClient } from "../core/client/ocpi-client";
import { PartnerClient } from "../core/client/partner-client";
import { ModuleCatalog } from "../core/modules/module-catalog";
import { adapterTypeOf, checkModuleRouting, resolveServedModules, routedAdapterNames } from "../core/modules/served-modules";
import { portProblems } from "../core/host/port-check";
import { buildHttpApp } from "../core/host/http-app";
import { createHttpServer } from "../core/host/http-server";
import { weightyTurnsOf } from "../core/http/weighty-turns";
import { bodyLimitsOf } from "../core/http/body-limits";
import { LossyTranslationLog } from "../core/model/lossy";
import { TolerantReader } from "../core/model/tolerant-reader";
import { locationLookup } from "../plugins/locations/location-lookup";
import { repairsRoute } from "../core/admin/repairs";
import { issuesOf } from "../core/model/object-type";
import { type ObjectType } from "../core/contract/object-type";
import { ocpiBackend } from "../core/client/ocpi-backend";
import { withoutNulls } from "../core/model/without-nulls";
import { CredentialsPlugin } from "../plugins/credentials/module";
import { ChangeFeed } from "../core/contract/change-feed";
import { Outbox } from "../core/outbox/outbox";
import { PushService } from "./push-service";
import { PushedObjects } from "../core/push/pushed-objects";
import { BackgroundServices } from "../core/contract/background";
import { PendingRequests } from "../core/async/pending-requests";
import { TimeoutWatcher } from "../core/async/timeout-watcher";
import { ResponseCache } from "../core/cache/response-cache";
import { SyncPuller } from "../core/sync/sync-puller";
import { SyncScheduler } from "../core/sync/sync-scheduler";
import { syncAdminRoutes } from "../core/sync/sync-admin";
import { syncConfigErrors } from "../core/sync/sync-targets";
import { BUILT_IN_ADAPTERS, BUILT_IN_PLUGINS } from "./built-ins";
import { describeIssue } from "../core/contract/errors";
import { Operations } from "./operations";
import { statusPageRoutes } from "./operations-routes";
import { TokensClient } from "../plugins/tokens/client";
import { tokenOwnerAuthorization } from "./token-owner";
import { HubConnections } from "../core/hub/hub-connections";
import { isHub } from "../core/hub/hub-config";
import { hubForwarding } from "./hub-forwarding";

export interface GatewayOptions {
  logger?: Logger;
  plugins?: InjectionToken<ModulePlugin>[];
  adapters?: AdapterFactory[];
}

/** Thrown when the config routes modules to adapters that cannot serve them: the gateway refuses to start. */
export class StartupError extends Error {
  constructor(readonly errors: string[]) {
    super(`Cannot start:\n${errors.map((e) => `  - ${e}`).join("\n")}`);
    this.name = "StartupError";
  }
}

/**
 * The composition root: one gateway instance with its own DI container, so
 * several can live in one process (tests run two side by side).
 */
export class Gateway {
  private server?: http.Server;

  private constructor(
    readonly config: GatewayConfig,
    readonly app: Koa,
    readonly store: Store,
    readonly registry: PartnerRegistry,
    readonly container: DependencyContainer,
    readonly log: Logger,
    private readonly adapters: Map<string, Adapter>,
    private readonly background: BackgroundServices,
    private readonly ops: Operations,
  ) {}

  static async create(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
    const log = options.logger ?? createLogger(config.server.log_level);
    const factories = options.adapters ?? BUILT_IN_ADAPTERS;
    const container = rootContainer.createChildContainer();
    container.registerInstance(TOKENS.Config, config);
    container.registerInstance(TOKENS.Logger, log);
    for (const plugin of options.plugins ?? BUILT_IN_PLUGINS) container.register(TOKENS.ModulePlugin, { useClass: plugin as never });
    const catalog = new ModuleCatalog(config);
    container.registerInstance(ModuleCatalog, catalog);
    container.registerInstance(OcpiClient, new OcpiClient(config.server.request_timeout_ms));

    const store = await openStore(config.store, log);
    const adapters = new Map<string, Adapter>();
    try {
      container.registerInstance(TOKENS.Store, store);
      const registry = new PartnerRegistry(config, store);
      container.registerInstance(PartnerRegistry, registry);
      const lossy = new LossyTranslationLog(log);
      container.registerInstance(LossyTranslationLog, lossy);
      const reader = new TolerantReader(log, { heldLocation: locationLookup(catalog, "RECEIVER") });
      container.registerInstance(TolerantReader, reader);
      const partnerClient = new PartnerClient(config, registry, container.resolve(OcpiClient), lossy, reader);
      container.registerInstance(PartnerClient, partnerClient);
      const changes = new ChangeFeed();
      container.registerInstance(ChangeFeed, changes);
      const cache = ResponseCache.fromConfig(config, log, store);
      container.registerInstance(ResponseCache, cache);
      changes.subscribe((change) => cache.invalidation(change.module, change.owner));
      const outbox = new Outbox(store);
      container.registerInstance(Outbox, outbox);
      const background = new BackgroundServices();
      container.registerInstance(BackgroundServices, background);
      const pending = new PendingRequests(store, log);
      container.registerInstance(PendingRequests, pending);
      background.add(new TimeoutWatcher(pending, log));
      // the gateway as a hub: its partners' connection status (hubclientinfo), watched only when it is one
      const hubConnections = new HubConnections(config, store, registry, outbox, container.resolve(OcpiClient), log);
      container.registerInstance(HubConnections, hubConnections);
      if (isHub(config)) background.add(hubConnections);
      const plugins = container.resolveAll<ModulePlugin>(TOKENS.ModulePlugin);
      registry.modules.know(plugins);
      const errors = checkModuleRouting(config, plugins, factories);
      if (errors.length) throw new StartupError(errors);
      const askTokenOwner = tokenOwnerAuthorization(config, store, registry, new TokensClient(partnerClient, lossy));
      const backendDeps = { http: container.resolve(OcpiClient), typeOf: objectTypeOf(plugins), lossy, reader, log };
      const deps: AdapterDeps = {
        store,
        config,
        log,
        changes,
        validateCanonical: canonicalValidator(plugins),
        askTokenOwner,
        ocpiBackend: (spec) => ocpiBackend(spec, backendDeps),
      };
      await createAdapters(config, factories, deps, adapters);
      const ops = Operations.create(container, config, log, store, adapters);
      for (const plugin of plugins) if (plugin.metrics) ops.metrics.include(plugin.metrics);
      const problems = portProblems(config, plugins, adapters);
      if (problems.length) throw new StartupError(problems);
      for (const adapter of adapters.values()) await adapter.start?.();
      const served = resolveServedModules(config, plugins, adapters);
      catalog.set(served);
      for (const module of served) module.plugin.connect?.(module.role, module.port);
      const syncErrors = syncConfigErrors(config, served);
      if (syncErrors.length) throw new StartupError(syncErrors);
      background.add(container.resolve(SyncScheduler));
      // queued canonical objects are rendered with every plugin's push spec: a hub broadcasts modules it does not serve
      container.registerInstance(PushedObjects, new PushedObjects(plugins));
      const push = container.resolve(PushService);
      container.registerInstance(PushService, push);
      await registry.init();
      const forward = hubForwarding(config, { registry, connections: hubConnections, outbox, lossy, reader, log }, plugins, served, background);
      const app = buildHttpApp(served, { config, registry, lossy, reader, log, cache, forward }, [
        repairsRoute(reader),
        ...syncAdminRoutes(container.resolve(SyncPuller)),
        ...push.adminRoutes(adapters),
      ], ops.surface(statusPageRoutes(container, served)), adapters);
      return new Gateway(config, app, store, registry, container, log, adapters, background, ops);
    } catch (error) {
      if (container.isRegistered(ResponseCache)) await container.resolve(ResponseCache).close();
      for (const adapter of adapters.values()) await adapter.stop?.();
      await store.close();
      throw error;
    }
  }

  /** The credentials handshake of the plugin instance that serves requests (resolving anew would build every plugin again). */
  get credentials() {
    const served = this.container.resolve(ModuleCatalog).served;
    return served.map((s) => s.plugin).find((p): p is CredentialsPlugin => p instanceof CredentialsPlugin)!.handshake;
  }

  /** Outbound calls to registered partners, for module clients (plugins/<module>/client.ts). */
  get partnerClient(): PartnerClient {
    return this.container.resolve(PartnerClient);
  }

  /** Starts listening; resolves with the bound port (server.port 0 picks a free one). */
  async listen(): Promise<number> {
    const inbound = this.config.server.inbound ?? DEFAULT_INBOUND;
    const server = createHttpServer(this.app.callback(), inbound, this.log, weightyTurnsOf(bodyLimitsOf(this.config)));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.config.server.port, this.config.server.host, () => resolve());
    });
    await this.ops.listen();
    this.background.startAll();
    return (server.address() as AddressInfo).port;
  }

  /** Stops accepting, lets in-flight requests finish, stops background work, then closes adapters and the store. */
  async close(): Promise<void> {
    await this.ops.beginShutdown();
    const server = this.server;
    if (server) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    }
    await this.ops.close();
    await this.background.stopAll();
    await this.container.resolve(ResponseCache).close();
    for (const adapter of this.adapters.values()) await adapter.stop?.();
    await this.store.close();
  }
}

/** A module's top-level object type, as its plugin declares it (push or sync spec). */
const objectTypeOf = (plugins: readonly ModulePlugin[]) => (module: string): ObjectType<any> | undefined => {
  const plugin = plugins.find((p) => p.module === module);
  return plugin?.pushSpec?.objectTypes[0] ?? plugin?.syncSpec?.type;
};

/** Checks objects against the 2.3.0 schema of a module's top-level object type. */
const canonicalValidator = (plugins: readonly ModulePlugin[]) => (module: string, object: unknown): string[] => {
  const type = objectTypeOf(plugins)(module);
  if (!type) return [];
  const result = type.schema("2.3.0", "full").safeParse(withoutNulls(object));
  return result.success ? [] : issuesOf(result.error).map(describeIssue);
};

/** Creates every adapter the modules route to, into `adapters`, so a failure half-way can stop those already created. */
const createAdapters = async (
  config: GatewayConfig,
  factories: readonly AdapterFactory[],
  deps: AdapterDeps,
  adapters: Map<string, Adapter>,
): Promise<void> => {
  for (const name of routedAdapterNames(config)) {
    const factory = factories.find((f) => f.type === adapterTypeOf(config, name))!;
    const adapter = await factory.create(config.adapters[name] ?? {}, deps);
    adapters.set(name, adapter);
  }
};
