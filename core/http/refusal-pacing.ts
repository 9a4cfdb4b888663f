import type { IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import type { InboundServerConfig } from "../../config/types";

/**
 * How long refusals may queue for one address before a refused request's
 * connection is closed unanswered: past it the address has dozens of
 * refused bodies waiting, which no client sends by mistake.
 */
const MAX_QUEUED_MS = 5_000;

/** When a refusal is answered (RefusalPacer.slot). */
export type RefusalSlot = "at once" | "paced" | "close";

/**
 * Refusals of request bodies, paced per client address (issue #23, the
 * refused-D3 flood): a client whose bodies are refused and that sends the
 * next at once would otherwise cost the gateway a connection, an answer and
 * the linger read (core/http/body-limits.ts refusalAnswered: up to
 * `max_body_bytes` dropped, most of a refusal's cost) as fast as it can
 * send, the faster the cheaper each refusal is made. Each
 * address may have `refusals_per_second` answered a second, and as many at
 * once; a refusal past that waits for its slot unread (its sender held
 * back by TCP), and is lingered after for 64 KiB only, so a flood of refused bodies costs the gateway at most that
 * many refusals a second per address. Past MAX_QUEUED_MS of waiting
 * refusals, the connection is closed unanswered. By address, not by token:
 * a refused body may come before or without one, and the per-address
 * connection cap (`max_connections_per_client`) bounds the waiting
 * connections the same way. Behind a reverse proxy every client shares the
 * proxy's address: raise the rate there, as the connection cap is raised.
 */
export class RefusalPacer {
  /** per address: performance.now() by which every refusal counted so far has leaked out of its bucket */
  private readonly drained = new Map<string, number>();
  private sweptAt = 0;

  constructor(private readonly perSecond: number) {}

  /**
   * Resolves when the refusal of `req` may be answered: "at once" within the address's allowance, "paced"
   * after waiting for its slot (the address sends refused bodies faster than its rate); "close": close it
   * unanswered.
   */
  slot(req: IncomingMessage): Promise<RefusalSlot> {
    const address = req.socket.remoteAddress ?? "";
    const now = performance.now();
    const interval = 1000 / this.perSecond;
    // the bucket holds one second of refusals: answered at once while it is not full
    const drained = Math.max(now, this.drained.get(address) ?? now) + interval;
    const wait = drained - now - 1000;
    if (wait > MAX_QUEUED_MS) return Promise.resolve("close");
    this.drained.set(address, drained);
    this.sweep(now);
    if (wait <= 0) return Promise.resolve("at once");
    return new Promise((resolve) => setTimeout(resolve, wait, "paced").unref());
  }

  /** addresses whose bucket has emptied are forgotten, at most once a second */
  private sweep(now: number): void {
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [address, drained] of this.drained) if (drained <= now) this.drained.delete(address);
  }
}

/** one pacer per limits object: per gateway (core/http/body-limits.ts bodyLimitsOf keeps one per config) */
const pacers = new WeakMap<Pick<InboundServerConfig, "refusals_per_second">, RefusalPacer>();

export const refusalPacerOf = (settings: Pick<InboundServerConfig, "refusals_per_second">): RefusalPacer => {
  let pacer = pacers.get(settings);
  if (!pacer) pacers.set(settings, (pacer = new RefusalPacer(settings.refusals_per_second)));
  return pacer;
};
