import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import type { InboundServerConfig } from "../../config/types";
import { OcpiError } from "./errors";
import { Status } from "../protocol/status";

/** What the lane is configured by (README "Config reference", `server.inbound.heavy_body_*`). */
export type HeavyLaneSettings = Pick<
  InboundServerConfig,
  "heavy_body_bytes" | "heavy_body_members" | "heavy_body_layouts" | "heavy_body_share" | "heavy_body_queue" | "heavy_body_max_wait_ms"
>;

/** What a body weighs so far: bytes as read, members and array elements, layouts (core/http/body-limits.ts counts them). */
export interface BodyWeight {
  bytes: number;
  members: number;
  layouts: number;
}

export const isHeavy = (settings: HeavyLaneSettings, weight: BodyWeight): boolean =>
  weight.bytes >= settings.heavy_body_bytes || weight.members >= settings.heavy_body_members || weight.layouts >= settings.heavy_body_layouts;

/** what one heavy body is expected to take of the lane (its turn and the pause after it) before any has been measured */
const FIRST_CYCLE_MS = 1_000;
/** weight of the latest cycle in the running estimate */
const CYCLE_SMOOTHING = 0.3;
/**
 * The longest one body holds the lane: an answer that waits on a slow
 * backend or hub receiver gives it up then, charged the busy time so far
 * (the work is the gateway's, the waiting is not).
 */
const MAX_TURN_MS = 10_000;

/**
 * A heavy body waiting for, or holding, its turn. `turn` settles when the
 * body may be parsed (or rejects: the client left while it waited); the
 * turn ends when the answer has gone out or the connection closed
 * (`end`), whichever comes first, so that no failure path keeps it.
 */
export interface HeavyTicket {
  readonly turn: Promise<void>;
  /** the whole body is in: from now on the ticket may be given the lane */
  ready(): void;
  /** the body will not be served (refused, broken off): out of the queue, or the turn ends */
  end(): void;
}

interface Waiting extends HeavyTicket {
  key: string;
  eligible: boolean;
  grant(): void;
  /** the turn's start: the event loop's utilization then, to charge its busy time at the end */
  started?: { at: number; elu: EventLoopUtilization; cap: NodeJS.Timeout };
}

/**
 * The heavy lane (issue #23): bodies the scanner finds heavy — many bytes,
 * members or layouts, `server.inbound.heavy_body_*` — are parsed, checked
 * and stored one at a time, gateway-wide, and each next one starts only
 * after a pause: the main thread's busy time during the previous turn
 * (performance.eventLoopUtilization, its own work and whatever ran beside
 * it) × (1 − share) / share. Heavy bodies thus take at most about `share`
 * of the gateway's time, and a normal request rarely lands behind one;
 * limits alone cannot give that, as two clients sending heavy bodies back
 * to back keep the core busy with whole bodies' turns.
 *
 * Global, because the core is: a lane per partner would give an adversary
 * with two registrations two shares. Per client (the Authorization header,
 * hashed: the body is read before admission, so this is who the request
 * says it is) are the queue's bound (`heavy_body_queue`, waiting or served)
 * and the order: turns go round the clients with a body waiting, so one
 * client's backlog does not delay another's body. A body that would wait
 * longer than `heavy_body_max_wait_ms` by the lane's estimate, or one past
 * its client's bound, is refused at once: HTTP 429 with 2000 (OCPI 2.2.1
 * Status codes: a client error, not a malformed request) and `Retry-After`.
 * Bodies are queued only once whole: a slow sender never holds the lane.
 */
export class HeavyLane {
  private running: Waiting | undefined;
  /** performance.now() from which the next turn may start */
  private readyAt = 0;
  /** waiting tickets per client, the Map's order the round */
  private readonly waiting = new Map<string, Waiting[]>();
  private held = 0;
  private readonly perKey = new Map<string, number>();
  private cycleMs = FIRST_CYCLE_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly settings: HeavyLaneSettings) {}

  /** The lane's state, for tests and metrics: bodies waiting, whether one is being served. */
  get state(): { waiting: number; serving: boolean } {
    return { waiting: this.held - (this.running ? 1 : 0), serving: this.running !== undefined };
  }

  /** A place in the queue for a heavy body of the request, or the 429 refusing it. */
  enter(req: IncomingMessage): HeavyTicket | OcpiError {
    const key = clientKey(req);
    const { heavy_body_queue: bound, heavy_body_max_wait_ms: maxWait } = this.settings;
    const now = performance.now();
    const expected = Math.max(0, this.readyAt - now) + (this.running ? this.cycleMs : 0) + (this.held - (this.running ? 1 : 0)) * this.cycleMs;
    if ((this.perKey.get(key) ?? 0) >= bound) return tooMany(`more than ${bound} heavy request bodies of this client at once (server.inbound.heavy_body_queue)`, expected);
    if (expected > maxWait) return tooMany(`heavy request bodies are taken one at a time at a share of the gateway's time, and the wait would exceed ${maxWait} ms (server.inbound.heavy_body_max_wait_ms)`, expected);

    let grant!: () => void;
    let refuse!: (error: Error) => void;
    const turn = new Promise<void>((resolve, reject) => {
      grant = resolve;
      refuse = reject;
    });
    // nobody may be awaiting the turn yet (the body still arriving) when it is refused
    turn.catch(() => undefined);
    let ended = false;
    const ticket: Waiting = {
      key,
      eligible: false,
      turn,
      grant,
      ready: () => {
        if (ended || ticket.eligible) return;
        ticket.eligible = true;
        this.next();
      },
      end: () => {
        if (ended) return;
        ended = true;
        this.leave(ticket);
        refuse(new OcpiError(Status.CLIENT_ERROR, "Request closed while its body waited for the heavy lane", 400));
      },
    };
    this.held++;
    this.perKey.set(key, (this.perKey.get(key) ?? 0) + 1);
    const queue = this.waiting.get(key);
    if (queue) queue.push(ticket);
    else this.waiting.set(key, [ticket]);
    // however the request ends, its place or turn ends with it
    const res = responseOf(req);
    if (res) res.once("close", ticket.end);
    else req.socket.once("close", ticket.end);
    return ticket;
  }

  private leave(ticket: Waiting): void {
    this.held--;
    const left = (this.perKey.get(ticket.key) ?? 1) - 1;
    if (left > 0) this.perKey.set(ticket.key, left);
    else this.perKey.delete(ticket.key);
    if (this.running === ticket) {
      clearTimeout(ticket.started!.cap);
      const now = performance.now();
      const busy = performance.eventLoopUtilization(ticket.started!.elu).active;
      const share = this.settings.heavy_body_share;
      const pause = (busy * (1 - share)) / share;
      this.readyAt = now + pause;
      this.cycleMs += CYCLE_SMOOTHING * (now - ticket.started!.at + pause - this.cycleMs);
      this.running = undefined;
    } else {
      const queue = this.waiting.get(ticket.key);
      const at = queue?.indexOf(ticket) ?? -1;
      if (queue && at >= 0) queue.splice(at, 1);
      if (queue?.length === 0) this.waiting.delete(ticket.key);
    }
    this.next();
  }

  /** The next eligible body, round the clients, once the lane is free and its pause over. */
  private next(): void {
    if (this.running || this.timer) return;
    const wait = this.readyAt - performance.now();
    if (wait > 0) {
      if (this.held > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.next();
        }, Math.ceil(wait));
        this.timer.unref();
      }
      return;
    }
    for (const [key, queue] of this.waiting) {
      const at = queue.findIndex((t) => t.eligible);
      if (at < 0) continue;
      const [ticket] = queue.splice(at, 1);
      // this client goes to the end of the round
      this.waiting.delete(key);
      if (queue.length > 0) this.waiting.set(key, queue);
      this.running = ticket;
      const cap = setTimeout(ticket.end, MAX_TURN_MS);
      cap.unref();
      ticket.started = { at: performance.now(), elu: performance.eventLoopUtilization(), cap };
      ticket.grant();
      return;
    }
  }
}

const tooMany = (why: string, expectedMs: number): OcpiError =>
  new OcpiError(Status.CLIENT_ERROR, `Too many heavy request bodies: ${why}; retry later`, 429, {
    "Retry-After": String(Math.max(1, Math.ceil(expectedMs / 1000))),
    Connection: "close",
  });

/** who the request says it is: its Authorization header, hashed so that no token is kept as a key */
const clientKey = (req: IncomingMessage): string => createHash("sha256").update(req.headers.authorization ?? "").digest("base64");

/**
 * The answer to `req`: what Node's HTTP server is writing on its socket
 * (node:_http_server assigns it there), checked to be this request's. The
 * hub's entrances hand over only the request, and its answer's `close` is
 * what ends a turn however the request ends (answered, failed, or the
 * client gone). Undefined for a request whose answer waits behind an
 * earlier one's (pipelining): the socket's close ends its turn then.
 */
const responseOf = (req: IncomingMessage): ServerResponse | undefined => {
  const res = (req.socket as { _httpMessage?: ServerResponse } | null)?._httpMessage;
  return res?.req === req ? res : undefined;
};

/** one lane per limits object: per gateway (core/http/body-limits.ts bodyLimitsOf keeps one per config) */
const lanes = new WeakMap<HeavyLaneSettings, HeavyLane>();

export const heavyLaneOf = (settings: HeavyLaneSettings): HeavyLane => {
  let lane = lanes.get(settings);
  if (!lane) lanes.set(settings, (lane = new HeavyLane(settings)));
  return lane;
};
