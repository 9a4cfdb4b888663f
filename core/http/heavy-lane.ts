import type { IncomingMessage, ServerResponse } from "node:http";
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import type { InboundServerConfig } from "../../config/types";
import { OcpiError } from "../contract/errors";
import { Status } from "../protocol/status";
import { clientKeyOf, weightyTurnsOf, type WeightyTurnSettings, type WeightyTurns } from "./weighty-turns";

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

/**
 * A heavy body's place in the lane. `place`: it may be read (its client
 * has fewer than `heavy_body_queue` bodies read and held); `turn`: it may be
 * parsed, checked and stored. Either rejects with the 429 once the body has
 * waited `heavy_body_max_wait_ms` without its turn. The turn ends when the
 * answer has gone out or the connection closed, whichever comes first, so
 * that no failure path keeps it; `end` ends it sooner (a body refused).
 */
export interface HeavyTicket {
  readonly place: Promise<void>;
  readonly turn: Promise<void>;
  /** the whole body is in: from now on it may be given its turn */
  ready(): void;
  end(): void;
}

/** weight of the latest cycle (a turn and the pause after it) in the running estimate */
const CYCLE_SMOOTHING = 0.3;
/** a cycle's length before any has been measured */
const FIRST_CYCLE_MS = 1_000;
/**
 * The longest one body holds the lane: an answer that waits on a slow
 * backend or hub receiver gives it up then, charged the busy time so far
 * (the work is the gateway's, the waiting is not).
 */
const MAX_TURN_MS = 10_000;

interface Ticket extends HeavyTicket {
  key: string;
  placed: boolean;
  ended: boolean;
  grantPlace(): void;
  grantTurn(): void;
  refuse(error: OcpiError): void;
  timer: NodeJS.Timeout;
  /** the turn's start: the event loop's utilization then, to charge its busy time at the end, and the light requests' mark then */
  started?: { at: number; elu: EventLoopUtilization; lightMark: number };
}

/** one client's heavy bodies: how many are read and held, those waiting to be read, those whole and waiting for a turn */
interface Client {
  placed: number;
  unread: Ticket[];
  whole: Ticket[];
}

/**
 * The heavy lane (issue #23): bodies the scanner finds heavy — many bytes,
 * members or layouts, `server.inbound.heavy_body_*` — are parsed, checked
 * and stored one at a time, gateway-wide, and each next one starts only
 * after a pause: the main thread's busy time during the previous turn
 * (performance.eventLoopUtilization: its own work and whatever ran beside
 * it) × (1 − share) / share. Heavy bodies thus take about `share` of the
 * gateway's time at most, and a normal request rarely lands behind one;
 * limits alone cannot give that, as two clients sending heavy bodies back
 * to back keep the core busy with whole bodies' turns. The pause is kept
 * only when other requests were about during the turn or are at its end
 * (a light request being served, or one that arrived since the turn began:
 * WeightyTurns.othersAboutSince): with nobody to protect, a partner's bulk
 * upload of heavy bodies goes on without one; a request arriving meanwhile
 * is served between the pieces of the body in its turn (weighty turns), and
 * the pause after that turn is kept.
 *
 * Global, because the core is: a lane per partner would give an adversary
 * with two registrations two shares. Per client (the Authorization header,
 * hashed: the body is read before admission, so this is who the request
 * says it is) are the bodies read and held (`heavy_body_queue`; the others
 * wait unread, the connection's TCP window holding their sender back, so a
 * client cannot fill the gateway's memory) and the order: turns go round
 * the clients with a whole body waiting. Bodies wait for a turn only once
 * whole: a slow sender never holds the lane. A body without its turn after
 * `heavy_body_max_wait_ms` is refused: HTTP 429 with 2000 (OCPI 2.2.1
 * Status codes: a client error, not a malformed request) and `Retry-After`,
 * the lane's expected wait. A client sending again at once is refused again
 * only after waiting as long, so refusals cannot become a flood.
 */
export class HeavyLane {
  private running: Ticket | undefined;
  /** performance.now() from which the next turn may start */
  private readyAt = 0;
  /** the clients with heavy bodies, the Map's order the round */
  private readonly clients = new Map<string, Client>();
  private whole = 0;
  private cycleMs = FIRST_CYCLE_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly settings: HeavyLaneSettings,
    private readonly turns: WeightyTurns,
  ) {}

  /** A place in the lane for the heavy body of the request. */
  enter(req: IncomingMessage, res: ServerResponse): HeavyTicket {
    const key = clientKeyOf(req);
    let client = this.clients.get(key);
    if (!client) this.clients.set(key, (client = { placed: 0, unread: [], whole: [] }));
    const [place, grantPlace, refusePlace] = deferred();
    const [turn, grantTurn, refuseTurn] = deferred();
    const ticket: Ticket = {
      key,
      place,
      turn,
      placed: false,
      ended: false,
      grantPlace,
      grantTurn,
      refuse: (error) => {
        refusePlace(error);
        refuseTurn(error);
      },
      ready: () => this.ready(ticket),
      end: () => this.leave(ticket),
      timer: setTimeout(() => this.expire(ticket), this.settings.heavy_body_max_wait_ms),
    };
    ticket.timer.unref();
    if (client.placed < this.settings.heavy_body_queue) this.placeIn(client, ticket);
    else client.unread.push(ticket);
    // however the request ends, its place or turn ends with it
    res.once("close", ticket.end);
    return ticket;
  }

  private placeIn(client: Client, ticket: Ticket): void {
    client.placed++;
    ticket.placed = true;
    ticket.grantPlace();
  }

  private ready(ticket: Ticket): void {
    const client = this.clients.get(ticket.key);
    if (ticket.ended || !client || client.whole.includes(ticket)) return;
    client.whole.push(ticket);
    this.whole++;
    this.next();
  }

  /** waited too long: 429, telling the client how long the lane expects to need */
  private expire(ticket: Ticket): void {
    if (ticket.ended || this.running === ticket) return;
    const expected = Math.max(0, this.readyAt - performance.now()) + (this.running ? this.cycleMs : 0) + this.whole * this.cycleMs;
    this.leave(ticket, tooMany(this.settings, expected));
  }

  private leave(ticket: Ticket, refusal?: OcpiError): void {
    if (ticket.ended) return;
    ticket.ended = true;
    clearTimeout(ticket.timer);
    ticket.refuse(refusal ?? new OcpiError(Status.CLIENT_ERROR, "Request closed while its body waited for the heavy lane", 400));
    const client = this.clients.get(ticket.key)!;
    if (this.running === ticket) {
      const now = performance.now();
      const busy = performance.eventLoopUtilization(ticket.started!.elu).active;
      const share = this.settings.heavy_body_share;
      const pause = this.turns.othersAboutSince(ticket.started!.lightMark) ? (busy * (1 - share)) / share : 0;
      this.readyAt = now + pause;
      this.cycleMs += CYCLE_SMOOTHING * (now - ticket.started!.at + pause - this.cycleMs);
      this.running = undefined;
    } else if (remove(client.whole, ticket)) this.whole--;
    else remove(client.unread, ticket);
    if (ticket.placed) {
      client.placed--;
      const waiting = client.unread.shift();
      if (waiting) this.placeIn(client, waiting);
    }
    if (client.placed === 0 && client.unread.length === 0) this.clients.delete(ticket.key);
    this.next();
  }

  /** The next whole body, round the clients, once the lane is free and its pause over. */
  private next(): void {
    if (this.running || this.timer || this.whole === 0) return;
    const wait = this.readyAt - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.next();
      }, Math.ceil(wait));
      this.timer.unref();
      return;
    }
    for (const [key, client] of this.clients) {
      const ticket = client.whole.shift();
      if (!ticket) continue;
      this.whole--;
      // this client goes to the end of the round
      this.clients.delete(key);
      this.clients.set(key, client);
      this.running = ticket;
      clearTimeout(ticket.timer);
      ticket.timer = setTimeout(ticket.end, MAX_TURN_MS);
      ticket.timer.unref();
      ticket.started = { at: performance.now(), elu: performance.eventLoopUtilization(), lightMark: this.turns.lightMark() };
      ticket.grantTurn();
      return;
    }
  }
}

const tooMany = (settings: HeavyLaneSettings, expectedMs: number): OcpiError =>
  new OcpiError(
    Status.CLIENT_ERROR,
    `Too many heavy request bodies: they are taken one at a time at a share of the gateway's time, and this one waited ${settings.heavy_body_max_wait_ms} ms (server.inbound.heavy_body_max_wait_ms); retry later`,
    429,
    { "Retry-After": String(Math.max(1, Math.ceil(expectedMs / 1000))), Connection: "close" },
  );

const deferred = (): [Promise<void>, () => void, (error: Error) => void] => {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // nobody may be waiting for it when it is refused (a place given at once, a turn never asked for)
  promise.catch(() => undefined);
  return [promise, resolve, reject];
};

const remove = <T>(list: T[], item: T): boolean => {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
  return at >= 0;
};

/** one lane per limits object: per gateway (core/http/body-limits.ts bodyLimitsOf keeps one per config) */
const lanes = new WeakMap<HeavyLaneSettings, HeavyLane>();

export const heavyLaneOf = (settings: HeavyLaneSettings & WeightyTurnSettings): HeavyLane => {
  let lane = lanes.get(settings);
  if (!lane) lanes.set(settings, (lane = new HeavyLane(settings, weightyTurnsOf(settings))));
  return lane;
};
