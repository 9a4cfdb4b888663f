import { inject, injectable } from "tsyringe";
import { createTask, type Logger as CronLogger, type ScheduledTask } from "node-cron";
import type { Logger } from "pino";
import type { GatewayConfig } from "../../config/types";
import type { Store } from "../contract/store";
import type { BackgroundService } from "../contract/background";
import { TOKENS } from "../contract/injection-tokens";
import { PartnerRegistry } from "../partners/partner-registry";
import { ModuleCatalog } from "../modules/module-catalog";
import { SyncStates } from "./sync-state";
import { SyncBusyError, SyncPuller, SyncRequestError } from "./sync-puller";
import { syncTargetOf, syncableModules, type SyncTarget } from "./sync-targets";
import { RegistrationPulls } from "./registration-pulls";

/**
 * Runs the pulls of `partners[].sync.<module>` on their cron schedules, in a
 * serving gateway only. Every instance on one store fires every tick; the
 * first to claim the tick in the store runs it, the others skip it, and the
 * puller's lease keeps a long pull from overlapping the next tick's anywhere.
 * Modules that ask for it are also pulled at a partner's registration (registration-pulls.ts).
 */
@injectable()
export class SyncScheduler implements BackgroundService {
  readonly name = "sync";
  private tasks: ScheduledTask[] = [];
  private readonly running = new Set<Promise<void>>();
  private stopping = new AbortController();
  private readonly states: SyncStates;
  private registrations?: RegistrationPulls;

  constructor(
    @inject(TOKENS.Config) private readonly config: GatewayConfig,
    @inject(TOKENS.Store) store: Store,
    @inject(TOKENS.Logger) private readonly log: Logger,
    private readonly puller: SyncPuller,
    private readonly registry: PartnerRegistry,
    private readonly catalog: ModuleCatalog,
  ) {
    this.states = new SyncStates(store);
  }

  start(): void {
    this.stopping = new AbortController();
    const logger = cronLogger(this.log);
    for (const partner of this.config.partners) {
      for (const [module, schedule] of Object.entries(partner.sync ?? {})) {
        const task = createTask(schedule, ({ date }) => this.track(this.tick(partner.id, module, date.getTime())), {
          name: `sync ${partner.id} ${module}`,
          noOverlap: true,
          logger,
        });
        void task.start();
        this.tasks.push(task);
      }
    }
    const atRegistration = new Map<string, SyncTarget>();
    for (const module of syncableModules(this.catalog.served)) {
      const target = syncTargetOf(this.catalog.served, module);
      if (target?.spec.atRegistration) atRegistration.set(module, target);
    }
    this.registrations = new RegistrationPulls(atRegistration, this.registry, this.states, this.puller, this.log);
    this.registrations.start(this.stopping.signal);
  }

  /** Stops the timers and breaks off pulls under way after their current page (they keep their old watermark). */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const task of this.tasks.splice(0)) await task.destroy();
    await this.registrations?.stop();
    await Promise.allSettled([...this.running]);
  }

  private async tick(partnerId: string, module: string, tick: number): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const record = await this.registry.get(partnerId);
    if (record?.status !== "registered") {
      this.log.debug({ partner: partnerId, module }, "sync tick skipped: partner not registered");
      return;
    }
    if (!(await this.states.claimTick(partnerId, module, tick))) {
      this.log.debug({ partner: partnerId, module, tick: new Date(tick).toISOString() }, "sync tick taken by another instance");
      return;
    }
    this.log.debug({ partner: partnerId, module, tick: new Date(tick).toISOString() }, "sync tick claimed");
    try {
      await this.puller.pull(partnerId, module, { trigger: "schedule", tick, signal: this.stopping.signal });
    } catch (error) {
      // A failed pull was logged by the puller; a pull still running (here or elsewhere) simply takes this tick too.
      if (error instanceof SyncBusyError) this.log.debug({ partner: partnerId, module }, "sync tick skipped: pull still running");
      else if (error instanceof SyncRequestError) this.log.warn({ partner: partnerId, module, error: error.message }, "sync tick skipped");
    }
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work.catch((error) => this.log.error({ err: error }, "sync tick failed"));
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
    return tracked;
  }
}

/** node-cron's own messages (missed or overlapping ticks) in the gateway's log. */
const cronLogger = (log: Logger): CronLogger => ({
  info: (message) => log.debug({ component: "node-cron" }, message),
  warn: (message) => log.warn({ component: "node-cron" }, message),
  error: (message, err) => log.error({ component: "node-cron", err: err ?? message }, "scheduler error"),
  debug: (message) => log.debug({ component: "node-cron" }, String(message)),
});
