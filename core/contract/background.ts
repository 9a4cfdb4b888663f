/** Work a serving gateway does besides answering requests: outbox delivery, timeouts, scheduled syncs. */
export interface BackgroundService {
  readonly name: string;
  start(): void;
  /** stops taking new work and waits for the work under way */
  stop(): Promise<void>;
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
