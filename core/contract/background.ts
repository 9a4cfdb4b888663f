/** Work a serving gateway does besides answering requests: outbox delivery, timeouts, scheduled syncs. */
export interface BackgroundService {
  readonly name: string;
  start(): void;
  /** stops taking new work and waits for the work under way */
  stop(): Promise<void>;
}

/**
 * A service that does `work` every `intervalMs` while the gateway serves: a run still going when the next is
 * due is not doubled, and `stop` waits for the one under way. `work` handles its own failures.
 */
export abstract class PeriodicService implements BackgroundService {
  abstract readonly name: string;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly intervalMs: number) {}

  protected abstract work(): Promise<void>;

  start(): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.work().finally(() => (this.running = undefined));
  }
}

/**
 * The background services of one gateway. They start with `listen()`, not
 * with the gateway object, so a CLI command that opens the gateway to work
 * on its store does not start delivering pushes or firing timeouts.
 */
export class BackgroundServices {
  private readonly services: BackgroundService[] = [];
  private started = false;

  add(service: BackgroundService): void {
    this.services.push(service);
    if (this.started) service.start();
  }

  startAll(): void {
    this.started = true;
    for (const service of this.services) service.start();
  }

  async stopAll(): Promise<void> {
    this.started = false;
    for (const service of [...this.services].reverse()) await service.stop();
  }
}
