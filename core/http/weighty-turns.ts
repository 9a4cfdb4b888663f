import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { InboundServerConfig } from "../../config/types";

/**
 * From this weight on (bytes, or members and array elements) a body's parse, and the work after it, are
 * weighty pieces (WeightyTurns.turn); below it a body is taken in one piece, waiting for nothing, as every
 * small request is.
 */
export const WEIGHTY_BODY_BYTES = 64 * 1024;
export const WEIGHTY_BODY_MEMBERS = 2_000;

/** What the turns are configured by (README "Config reference", `server.inbound.weighty_piece_max_wait_ms`). */
export type WeightyTurnSettings = Pick<InboundServerConfig, "weighty_piece_max_wait_ms">;

/**
 * When the pieces of weighty bodies run (issue #23): one piece per turn of the event loop, gateway-wide,
 * oldest first, after the I/O that was waiting (setImmediate runs after the poll phase), and only while no
 * light request is being served — a request that is not a weighty body's, from its arrival to its answer —
 * or once the pieces have waited `weighty_piece_max_wait_ms` for them. A light request takes several turns
 * (read, admission, the store, the answer): served between two pieces, it still met one piece on each of
 * them, and two clients sending bodies just below the heavy lane's thresholds back to back kept a normal
 * client's p99 at 4-13 × its p99 alone. Waiting for the light requests, it meets at most the piece that was
 * running when it arrived (bench/RESULTS.md, "Request bodies at the body limits"). The wait is bounded so
 * that light requests arriving without a pause, or one waiting long on a backend, cannot hold weighty bodies
 * back for good: they are then taken a piece per `weighty_piece_max_wait_ms`.
 */
export class WeightyTurns {
  /** light requests being served */
  private light = 0;
  /** the responses of the light requests being served: each counted once, until answered or found weighty */
  private readonly lightAnswers = new WeakSet<ServerResponse>();
  /** weighty pieces waiting for their turn, oldest first */
  private readonly waiting: (() => void)[] = [];
  /** performance.now() from which the first waiting piece has waited for light requests */
  private waitingSince = 0;
  private immediate: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly settings: WeightyTurnSettings) {}

  /**
   * A request has arrived (the HTTP server's listener, before anything else): light from now until it is
   * answered, unless its Content-Length makes it a weighty body from the start.
   */
  arrived(req: IncomingMessage, res: ServerResponse): void {
    if (Number(req.headers["content-length"]) >= WEIGHTY_BODY_BYTES) return;
    this.light++;
    this.lightAnswers.add(res);
    res.once("close", () => this.notLight(res));
  }

  /** The request's body turned out weighty (by its members, or sent chunked): it no longer counts as light. */
  weighty(res: ServerResponse): void {
    this.notLight(res);
  }

  /** Resolves when a weighty piece of work may run (the class's comment says when). */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length === 1) {
        this.waitingSince = performance.now();
        this.schedule();
      }
    });
  }

  private notLight(res: ServerResponse): void {
    if (!this.lightAnswers.delete(res)) return;
    this.light--;
    if (this.light === 0 && this.waiting.length > 0) this.schedule();
  }

  private schedule(): void {
    if (this.immediate) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.immediate = setImmediate(this.runOne);
  }

  private readonly runOne = (): void => {
    this.immediate = undefined;
    if (this.waiting.length === 0) return;
    const waited = performance.now() - this.waitingSince;
    if (this.light > 0 && waited < this.settings.weighty_piece_max_wait_ms) {
      if (!this.timer) this.timer = setTimeout(this.waitedEnough, this.settings.weighty_piece_max_wait_ms - waited);
      return;
    }
    // its continuation runs now, in this callback's microtasks: one piece per turn of the event loop
    this.waiting.shift()!();
    this.waitingSince = performance.now();
    if (this.waiting.length > 0) this.schedule();
  };

  private readonly waitedEnough = (): void => {
    this.timer = undefined;
    this.schedule();
  };
}

/** one per limits object: per gateway (core/http/body-limits.ts bodyLimitsOf keeps one per config) */
const turnsOf = new WeakMap<WeightyTurnSettings, WeightyTurns>();

export const weightyTurnsOf = (settings: WeightyTurnSettings): WeightyTurns => {
  let turns = turnsOf.get(settings);
  if (!turns) turnsOf.set(settings, (turns = new WeightyTurns(settings)));
  return turns;
};
