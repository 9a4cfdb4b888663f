import { inject, injectable } from "tsyringe";
import type { Logger } from "pino";
import type { GatewayConfig } from "../config/types";
import type { Store } from "../core/contract/store";
import type { Adapter } from "../core/contract/adapter";
import type { AdminRoute } from "../core/contract/admin-route";
import type { BackgroundService } from "../core/contract/background";
import { TOKENS } from "../core/contract/injection-tokens";
import { Outbox } from "../core/outbox/outbox";
import { OutboxWorker } from "../core/outbox/outbox-worker";
import { ChangeFeed } from "../core/contract/change-feed";
import { PartnerRegistry } from "../core/partners/partner-registry";
import { PartnerClient } from "../core/client/partner-client";
import { BackgroundServices } from "../core/contract/background";
import { PushedObjects } from "../core/push/pushed-objects";
import { ModuleCatalog } from "../core/modules/module-catalog";
import { adapterPortOf } from "../core/modules/served-modules";
import { changesPortName, type ChangesPort, type PushSpec } from "../core/contract/push-spec";
import { PushFanOut } from "../core/push/push-fan-out";
import { PushResync } from "../core/push/push-resync";
import { eventsRoute } from "../core/push/events-route";
import { outboxRoute } from "../core/push/outbox-route";
import { deadLetterRoutes } from "../core/push/dead-letter-routes";

/**
 * Pushes of our own data to partners, wired together: changes on the
 * ChangeFeed fan out into the outbox, the outbox worker delivers with each
 * partner's retry policy (`partners[].push`), a partner unreachable past its
 * backlog window gets a full resync, and the admin API takes change events
 * from backends and shows the queues. Resolve it once the served modules
 * are known (ModuleCatalog).
 */
@injectable()
export class PushService {
  private readonly resync: PushResync;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Store) store: Store,
    @inject(TOKENS.Logger) log: Logger,
    private readonly outbox: Outbox,
    private readonly feed: ChangeFeed,
    private readonly registry: PartnerRegistry,
    partners: PartnerClient,
    background: BackgroundServices,
    objects: PushedObjects,
    private readonly catalog: ModuleCatalog,
  ) {
    const specs = new Map<string, PushSpec>();
    for (const served of catalog.served) if (served.plugin.pushSpec) specs.set(served.plugin.module, served.plugin.pushSpec);
    const fanOut = new PushFanOut(config, specs, outbox, registry, log);
    feed.subscribe((change) => fanOut.onChange(change));
    const senders = () => catalog.served.filter((s) => s.role === "SENDER" && s.plugin.pushSpec?.resync);
    this.resync = new PushResync(store, outbox, registry, fanOut, senders, log);
    const worker = new OutboxWorker(
      outbox,
      store,
      // a queued canonical object is rendered now, for the partner's version and config of this delivery
      (partnerId, request) => partners.send(partnerId, request, objects),
      // the YAML half of the partner's profile (partners[].push): the worker asks without waiting for a read
      (partnerId) => registry.settingsOf(partnerId).pushRetry,
      log,
      {
        delivered: (message) => this.resync.onSettled(message),
        // a probe the partner refuses still shows it answers again
        rejected: (message) => this.resync.onSettled(message),
        resyncNeeded: (partnerId) => this.resync.mark(partnerId),
      },
      { concurrencyOf: (partnerId) => registry.settingsOf(partnerId).pushConcurrency },
    );
    background.add(worker);
    background.add(this.resumeResyncs(log));
  }

  /**
   * The admin routes of pushes; `adapters` provide the ports change events
   * go to: the adapter's CHANGES port, else its RECEIVER port, which is used
   * whatever interfaces partners are offered (a CPO serving sessions only
   * as SENDER still takes its backend's sessions).
   */
  adminRoutes(adapters: ReadonlyMap<string, Adapter>): AdminRoute[] {
    const changesPortOf = (module: string) =>
      adapters.get(this.config.modules[module]?.adapter ?? "")?.ports[changesPortName(module)] as ChangesPort | undefined;
    return [
      eventsRoute((module) => {
        const served = this.catalog.served.find((s) => s.plugin.module === module && s.plugin.pushSpec);
        if (!served) return undefined;
        return {
          spec: served.plugin.pushSpec!,
          parties: served.parties,
          port: changesPortOf(module),
          receiver: adapterPortOf(this.config, adapters, served.plugin, "RECEIVER"),
          publish: (change) => this.feed.publish(change),
        };
      }),
      outboxRoute(this.outbox, this.registry, this.resync),
      ...deadLetterRoutes(this.outbox),
    ];
  }

  /** On start, a resync a stopped gateway left unfinished is picked up again. */
  private resumeResyncs(log: Logger): BackgroundService {
    let resuming: Promise<void> | undefined;
    return {
      name: "push-resync",
      start: () => {
        resuming = this.resync.resume().catch((error) => log.error({ err: error }, "could not resume resyncs"));
      },
      stop: async () => {
        await resuming;
      },
    };
  }
}
