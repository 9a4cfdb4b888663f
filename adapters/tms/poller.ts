import type { Logger } from "pino";
import { BackendUnavailableError, type Store } from "../kit";
import type { TmsPage } from "./contract";
import type { TmsClient } from "./client";
import type { TmsPublisher } from "./publisher";
import type { TmsSettings } from "./settings";

/** The last `updated` (epoch ms) seen per list, and the lock of one poll at a time across instances. */
const WATERMARKS = "tms:watermark";
const LOCK = "tms:poll";
const LOCK_TTL_MS = 60_000;

type List = "devices" | "settlements";

/**
 * The safety net under the webhook, whose delivery is best effort
 * (docs/tms-v1.md, "Polling"):
 * every `poll_interval_ms`, the devices and settlements changed after the
 * watermark (minus `poll_overlap_ms`), page by page, each reported once
 * (TmsPublisher). The watermark moves after each page, so a poll broken
 * off (the system in maintenance: 503) resumes where it stopped and loses
 * nothing. The first poll of a list is a baseline: it only sets the
 * watermark (a CPO gets what existed before by its sync pull). One poll at
 * a time across instances (store lock); the system being down is logged
 * once, and once more when it is back.
 */
export class TmsPoller {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private down = false;
  private readonly instance = `${process.pid}:${Math.random().toString(36).slice(2)}`;

  constructor(
    private readonly tms: TmsClient,
    private readonly publisher: TmsPublisher,
    private readonly store: Store,
    private readonly settings: TmsSettings,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One poll now (tests, and every tick). */
  async pollOnce(): Promise<void> {
    if (!(await this.store.acquireLock(LOCK, this.instance, LOCK_TTL_MS))) return;
    try {
      await this.pollList("devices", (cursor, after) => this.tms.devices(after, cursor), (device) => this.publisher.device(device));
      await this.pollList("settlements", (cursor, after) => this.tms.settlements(after, cursor), (settlement) => this.publisher.settlement(settlement));
      if (this.down) this.log.info("payment-terminal system is back; polling resumed");
      this.down = false;
    } catch (error) {
      if (!(error instanceof BackendUnavailableError)) this.log.error({ err: error }, "payment-terminal system poll failed; the watermark stays");
      else if (!this.down) this.log.warn("payment-terminal system unavailable; the poll resumes from its watermark");
      this.down = this.down || error instanceof BackendUnavailableError;
    } finally {
      await this.store.releaseLock(LOCK, this.instance);
    }
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pollOnce().finally(() => this.schedule(this.settings.poll_interval_ms));
    }, delay);
    this.timer.unref();
  }

  private async pollList<T extends { updated: number }>(
    list: List,
    fetch: (cursor: string | undefined, changedAfter: number | undefined) => Promise<TmsPage<T>>,
    publish: (item: T) => Promise<unknown>,
  ): Promise<void> {
    const watermark = await this.store.get<number>(WATERMARKS, list);
    const baseline = watermark === undefined;
    const after = baseline ? undefined : Math.max(0, watermark - this.settings.poll_overlap_ms);
    let cursor: string | undefined;
    let seen = watermark ?? 0;
    do {
      if (this.stopped) return;
      const page = await fetch(cursor, after);
      for (const item of page.items) {
        if (!baseline) await publish(item);
        seen = Math.max(seen, item.updated);
      }
      // per page: a poll broken off later resumes after what was reported
      if (seen > (watermark ?? -1)) await this.store.put(WATERMARKS, list, seen);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    if (baseline && seen === 0) await this.store.put(WATERMARKS, list, 0);
  }
}
