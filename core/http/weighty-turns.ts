import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type EventLoopUtilization, performance } from "node:perf_hooks";
import type { InboundServerConfig } from "../../config/types";

/**
 * From this weight on (bytes, or members and array elements) a body's parse, and the work after it, are
 * weighty pieces (WeightyTurns.turn); below it a body is taken in one piece, waiting for nothing, as every
 * small request is.
 */
export const WEIGHTY_BODY_BYTES = 64 * 1024;
export const WEIGHTY_BODY_MEMBERS = 2_000;

/** What the turns are configured by (README "Config reference", `server.inbound.weighty_body_share`). */
export type WeightyTurnSettings = Pick<InboundServerConfig, "weighty_body_share">;

/**
 * When the pieces of weighty bodies run (issue #23): at most one piece a turn of the event loop, gateway-wide,
 * round the clients that have one waiting (a client is its Authorization header, clientKeyOf), each client's
 * oldest first, so that a client with many bodies queued delays another's by one piece, not by its queue;
 * after the I/O that was waiting (setImmediate runs after the poll phase); and while other
 * requests are about — a light request (one that is not a weighty body's) being served, or one that arrived
 * since the last piece began — spaced so that their turns take at most `weighty_body_share` of the event
 * loop: a piece whose turns kept the loop busy b ms (the event loop's utilization from the piece's start to
 * the second check phase after it: its own turn, and the next, where what it queued runs, such as the SQLite
 * store's group commit of its write) is followed by a pause of b × (1 − share) / share before the next. A
 * light request then meets a piece, not a run of pieces, and finds most turns free of them; with no other
 * request about, the pieces follow one another without a pause. Beside two clients sending bodies just below
 * the heavy lane's thresholds back to back, a normal client's p99 was 7.9-15.9 × its p99 alone with no pause
 * and 4.8-5.2 × at a share of 0.5 when those thresholds were 512 KiB and 20,000 members (one piece, the parse
 * of a 0.48 MB body, was longer than the normal client's p99 alone); at the thresholds of today, 128 KiB and
 * 10,000, it was 1.83-4.44 × over eleven runs, under 2 × in five (bench/RESULTS.md, "Request bodies at the
 * body limits").
 */
export class WeightyTurns {
  /** light requests being served, and how many have arrived in all (a mark for othersAboutSince) */
  private light = 0;
  private lightArrivals = 0;
  /** the responses of the light requests being served, each with the piece count when it arrived: counted once, until answered or found weighty */
  private readonly lightAnswers = new WeakMap<ServerResponse, number>();
  /** pieces begun so far, and the light requests that arrived since the last one began (not found weighty since) */
  private pieces = 0;
  private arrivedSincePiece = 0;
  /** weighty pieces waiting for their turn, per client, oldest first; the Map's order the round (the client served last goes last) */
  private readonly waiting = new Map<string, (() => void)[]>();
  /** performance.now() when the last piece began, and the event loop's utilization then (until its turn was measured) */
  private pieceStart = 0;
  private pieceUtilization: EventLoopUtilization | undefined;
  /** whether the check phase after the last piece's has come (its busy time is measured at the next one) */
  private pieceTurnOver = false;
  /** the busy time of the last piece's turns, ms */
  private pieceBusy = 0;
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
    this.lightArrivals++;
    this.arrivedSincePiece++;
    this.lightAnswers.set(res, this.pieces);
    res.once("close", () => this.notLight(res));
  }

  /** The request's body turned out weighty (by its members, or sent chunked): it no longer counts as light. */
  weighty(res: ServerResponse): void {
    if (this.lightAnswers.get(res) === this.pieces) this.arrivedSincePiece--;
    this.notLight(res);
  }

  /** How many weighty pieces have begun so far. */
  get piecesBegun(): number {
    return this.pieces;
  }

  /** A mark for othersAboutSince: the light requests arrived so far. */
  lightMark(): number {
    return this.lightArrivals;
  }

  /**
   * Whether other requests were about since `mark` (a lightMark): a light request being served now, or one
   * that arrived since (one later found weighty still counts: the heavy lane's pauses err on the safe side).
   */
  othersAboutSince(mark: number): boolean {
    return this.light > 0 || this.lightArrivals > mark;
  }

  /** Resolves when a weighty piece of work of `client` (a clientKeyOf) may run (the class's comment says when). */
  turn(client = ""): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(client);
      if (queue) queue.push(resolve);
      else this.waiting.set(client, [resolve]);
      this.schedule();
    });
  }

  private notLight(res: ServerResponse): void {
    if (!this.lightAnswers.delete(res)) return;
    this.light--;
  }

  private schedule(): void {
    if (!this.immediate && !this.timer) this.immediate = setImmediate(this.runOne);
  }

  private readonly runOne = (): void => {
    this.immediate = undefined;
    if (this.pieceUtilization) {
      if (!this.pieceTurnOver) {
        this.pieceTurnOver = true;
        this.immediate = setImmediate(this.runOne);
        return;
      }
      // the second check phase after the piece began: its turn and the next are over
      this.pieceBusy = performance.eventLoopUtilization(this.pieceUtilization).active;
      this.pieceUtilization = undefined;
    }
    const next = this.waiting.entries().next();
    if (next.done) return;
    const due = this.pieceStart + this.pieceBusy / this.settings.weighty_body_share;
    const now = performance.now();
    if ((this.light > 0 || this.arrivedSincePiece > 0) && now < due) {
      this.timer = setTimeout(this.paused, due - now);
      return;
    }
    this.pieceStart = now;
    this.pieceUtilization = performance.eventLoopUtilization();
    this.pieceTurnOver = false;
    this.pieces++;
    this.arrivedSincePiece = 0;
    // the client goes to the end of the round; its piece's continuation runs now, in this callback's
    // microtasks; the second check phase from here measures its turns
    const [client, queue] = next.value;
    this.waiting.delete(client);
    const piece = queue.shift()!;
    if (queue.length > 0) this.waiting.set(client, queue);
    piece();
    this.schedule();
  };

  private readonly paused = (): void => {
    this.timer = undefined;
    this.schedule();
  };
}

/** Who a request's weighty pieces belong to: its Authorization header (hashed, so that no token is kept), one client per credential as the heavy lane counts them. */
export const clientKeyOf = (req: IncomingMessage): string => createHash("sha256").update(req.headers.authorization ?? "").digest("base64");

/** one per limits object: per gateway (core/http/body-limits.ts bodyLimitsOf keeps one per config) */
const turnsOf = new WeakMap<WeightyTurnSettings, WeightyTurns>();

export const weightyTurnsOf = (settings: WeightyTurnSettings): WeightyTurns => {
  let turns = turnsOf.get(settings);
  if (!turns) turnsOf.set(settings, (turns = new WeightyTurns(settings)));
  return turns;
};
