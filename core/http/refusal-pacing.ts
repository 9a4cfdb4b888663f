import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
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
 * the linger read (refusalAnswered below: up to
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

/** What a refusal is answered by: the pacing's rate and the byte limit the linger reads to. */
export type RefusalSettings = Pick<InboundServerConfig, "refusals_per_second" | "max_body_bytes">;

/** how long a refused request's connection is still read (and what arrives dropped) once the answer is out */
const LINGER_MS = 2_000;

/**
 * What is still read of a refused request that waited for its refusal slot (its address sends refused
 * bodies faster than `refusals_per_second`): reading and dropping `max_body_bytes` after each was most of
 * what such a refusal cost the gateway (two clients re-sending the D3 body, paced at 50 a second: 1.9-2.0 ms of
 * CPU a refusal against 1.1 with this, and four times the garbage collections; README "Answers and errors");
 * such a client may see its connection reset under the answer (1-2 % of those refusals), where one refused
 * now and then gets the whole linger.
 */
const PACED_LINGER_BYTES = 64 * 1024;

/**
 * A refused body is answered with `Connection: close` while the client may
 * still be sending it. Closed then, with the client's bytes unread, the
 * connection would be reset by the kernel, and a client busy sending can
 * lose the answer with it; so once the answer is out the connection is
 * half-closed, and what still arrives is read and dropped — never parsed —
 * until the client closes, for at most LINGER_MS and `lingerBytes` more
 * bytes (nginx's lingering close does the same).
 */
const lingerAfterRefusal = (req: IncomingMessage, lingerBytes: number): void => {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  // only what arrives once the answer is out counts: the refused body itself (read with the headers, or
  // still arriving while the answer is written) must not destroy the socket before its 413 goes out
  let answered = false;
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    if (!answered) return;
    dropped += chunk.length;
    if (dropped > lingerBytes) socket.destroy();
  });
  req.resume();
  // what Node's HTTP server calls once an answer with Connection: close is out (node:_http_server, resOnFinish)
  socket.destroySoon = () => {
    answered = true;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    socket.end();
  };
};

/**
 * A refused request, read no further until its address's refusal slot
 * (core/http/refusal-pacing.ts): answered then, and lingered after
 * (lingerAfterRefusal: up to `max_body_bytes` when it had its slot at once,
 * PACED_LINGER_BYTES when it waited for one): resolves true; closed
 * unanswered, false, when that address has too many refusals waiting.
 * Every entrance that refuses a body calls it before it answers.
 */
export const refusalAnswered = async (req: IncomingMessage, limits: RefusalSettings): Promise<boolean> => {
  req.pause();
  const slot = await refusalPacerOf(limits).slot(req);
  if (slot === "close") {
    req.socket.destroy();
    return false;
  }
  lingerAfterRefusal(req, slot === "paced" ? Math.min(PACED_LINGER_BYTES, limits.max_body_bytes) : limits.max_body_bytes);
  return true;
};
