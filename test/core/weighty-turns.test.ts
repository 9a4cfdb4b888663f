import http from "node:http";
import net from "node:net";
import pino from "pino";
import { DEFAULT_INBOUND } from "../../config/types";
import { createHttpServer } from "../../core/host/http-server";
import { readJsonBody } from "../../core/http/json-body";
import { WeightyTurns, weightyTurnsOf } from "../../core/http/weighty-turns";

/**
 * Weighty pieces of work (a large body's parse, and the work after it: core/http/json-body.ts,
 * core/http/weighty-turns.ts) run one per turn of the event loop, oldest first; the I/O that arrives
 * meanwhile is served between two of them; and while other requests are about, a piece's turn is followed
 * by a pause, so that pieces take at most `weighty_body_share` of the loop. Turns are counted by an
 * immediate that re-queues itself (one a turn, in the check phase). Durations are checked only where a
 * loaded machine cannot break them: a pause is at least the piece's busy time over the share (a lower
 * bound, which only grows when the machine is slow), and "no pause" is checked against a pause ten times
 * longer than what is allowed for.
 */
const NO_PAUSE = { weighty_body_share: 1 };

describe("weighty turns", () => {
  it("runs pieces queued together at most one a turn, oldest first", async () => {
    const turns = new WeightyTurns(NO_PAUSE);
    let turn = 0;
    let counting = true;
    const tick = (): void => {
      turn++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const ran: [piece: number, turn: number][] = [];
    await Promise.all([0, 1, 2, 3, 4].map((piece) => turns.turn().then(() => void ran.push([piece, turn]))));
    counting = false;
    expect(ran.map(([piece]) => piece)).toEqual([0, 1, 2, 3, 4]);
    const at = ran.map(([, when]) => when);
    for (let i = 1; i < at.length; i++) expect(at[i]).toBeGreaterThan(at[i - 1]);
  });

  it("goes round the clients: a piece of one client queued behind another's queue waits for one of its pieces, not all", async () => {
    const turns = new WeightyTurns(NO_PAUSE);
    const ran: string[] = [];
    const piece = (client: string, name: string) => turns.turn(client).then(() => void ran.push(name));
    await Promise.all([piece("a", "a1"), piece("a", "a2"), piece("a", "a3"), piece("a", "a4"), piece("b", "b1"), piece("b", "b2"), piece("c", "c1")]);
    expect(ran).toEqual(["a1", "b1", "c1", "a2", "b2", "a3", "a4"]);
  });

  it("serves a request that arrived during a piece before the next piece", async () => {
    const turns = new WeightyTurns(NO_PAUSE);
    const events: string[] = [];
    const server = net.createServer((socket) => socket.on("data", () => void events.push("request")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const client = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => client.once("connect", resolve));
    const first = turns.turn().then(() => {
      events.push("first");
      client.write("request");
      // the piece holds the loop until the request has surely arrived at the server's socket
      const until = Date.now() + 50;
      while (Date.now() < until);
    });
    const second = turns.turn().then(() => void events.push("second"));
    await Promise.all([first, second]);
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // the server read the request in the poll phase between the two pieces
    expect(events).toEqual(["first", "request", "second"]);
  });
});

/** The gateway's HTTP server (createHttpServer) with its own turns; `handle` answers what the test sends. */
const serve = async (share: number, handle: http.RequestListener) => {
  const limits = { ...DEFAULT_INBOUND, weighty_body_share: share };
  // the turns readJsonBody takes for these limits, as the gateway passes them to its server
  const turns = weightyTurnsOf(limits);
  const server = createHttpServer(handle, limits, pino({ level: "silent" }), turns);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const agent = new http.Agent({ keepAlive: false });
  const send = (path: string, body?: string) =>
    new Promise<string>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path, method: body === undefined ? "GET" : "POST", agent }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end(body);
    });
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { limits, turns, send, close, port };
};

/** a piece that keeps the event loop busy `ms` */
const busyFor = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** two pieces queued together, each busy `ms` (or queuing that work for the next check phase, as a store's group commit): when the second began after the first (ms) */
const twoPieces = async (turns: WeightyTurns, ms: number, queued = false): Promise<number> => {
  const started: number[] = [];
  const piece = () =>
    turns.turn().then(() => {
      started.push(performance.now());
      if (queued) setImmediate(() => busyFor(ms));
      else busyFor(ms);
    });
  await Promise.all([piece(), piece()]);
  return started[1] - started[0];
};

describe("weighty pieces take a share of the loop while other requests are about", () => {
  const SHARE = 0.1;
  const PIECE_MS = 30;
  /** the least pause a piece's turn of PIECE_MS is followed by at SHARE, from the piece's start */
  const SPACED_MS = PIECE_MS / SHARE;

  it("while a light request is being served, the next piece begins at least its turn's busy time / share after the last", async () => {
    let lightIn: () => void = () => undefined;
    const lightArrived = new Promise<void>((resolve) => (lightIn = resolve));
    const gateway = await serve(SHARE, () => lightIn());
    try {
      // answered only after the test: the light request is being served all along
      void gateway.send("/light").catch(() => undefined);
      await lightArrived;
      // timers may fire up to a millisecond before performance.now() reaches their due time
      expect(await twoPieces(gateway.turns, PIECE_MS)).toBeGreaterThanOrEqual(SPACED_MS - 2);
    } finally {
      await gateway.close();
    }
  });

  it("the busy time of a piece counts what it queued for the next check phase (a store's group commit)", async () => {
    let lightIn: () => void = () => undefined;
    const lightArrived = new Promise<void>((resolve) => (lightIn = resolve));
    const gateway = await serve(SHARE, () => lightIn());
    try {
      void gateway.send("/light").catch(() => undefined);
      await lightArrived;
      expect(await twoPieces(gateway.turns, PIECE_MS, true)).toBeGreaterThanOrEqual(SPACED_MS - 2);
    } finally {
      await gateway.close();
    }
  });

  it("a light request that arrived and was answered since the last piece began still spaces the next", async () => {
    const gateway = await serve(SHARE, (_req, res) => res.end("light"));
    try {
      const started: number[] = [];
      const first = gateway.turns.turn().then(() => {
        started.push(performance.now());
        busyFor(PIECE_MS);
      });
      await first;
      expect(await gateway.send("/light")).toBe("light");
      await gateway.turns.turn();
      started.push(performance.now());
      expect(started[1] - started[0]).toBeGreaterThanOrEqual(SPACED_MS - 2);
    } finally {
      await gateway.close();
    }
  });

  it("with no other request about, pieces run without a pause", async () => {
    const gateway = await serve(SHARE, (_req, res) => res.end("light"));
    try {
      // a light request answered before the pieces: not about any more once a piece has begun
      expect(await gateway.send("/light")).toBe("light");
      await gateway.turns.turn();
      // SPACED_MS would be the pause; one turn is PIECE_MS and a little
      expect(await twoPieces(gateway.turns, PIECE_MS)).toBeLessThan(SPACED_MS / 2);
    } finally {
      await gateway.close();
    }
  });

  it("a request with a weighty body is not light: by its Content-Length, or once read (by its members)", async () => {
    // a share so small that a body whose own request counted as about would pause its second piece for seconds
    const gateway = await serve(0.0001, (req, res) => {
      readJsonBody(req, res, gateway.limits).then(
        ({ body }) => res.end(String((body as unknown[]).length)),
        () => res.end("refused"),
      );
    });
    try {
      const began = performance.now();
      // 80 KB: weighty by its Content-Length, never counted as light
      expect(await gateway.send("/bytes", JSON.stringify(["x".repeat(40_000), "y".repeat(40_000)]))).toBe("2");
      // 3,000 elements in 6 KB: counted as light until its body was read and found weighty
      expect(await gateway.send("/members", JSON.stringify(Array.from({ length: 3_000 }, () => 0)))).toBe("3000");
      expect(performance.now() - began).toBeLessThan(2_500);
    } finally {
      await gateway.close();
    }
  });
});

describe("weighty pieces go round the clients", () => {
  it("a client with three bodies queued delays another client's body by one piece, not three bodies (clients by Authorization)", async () => {
    let lightIn: () => void = () => undefined;
    const lightArrived = new Promise<void>((resolve) => (lightIn = resolve));
    const parsed: string[] = [];
    const gateway = await serve(0.01, (req, res) => {
      if (req.url === "/light") return lightIn();
      void readJsonBody(req, res, gateway.limits).then(({ body }) => {
        parsed.push((body as { who: string }).who);
        res.end("ok");
      });
    });
    const post = (authorization: string, who: string) =>
      new Promise<void>((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port: gateway.port, path: "/", method: "POST", headers: { authorization } }, (res) => res.resume().on("end", resolve));
        req.on("error", reject);
        // weighty by its elements (2,500), so that its parse and the work after it are pieces
        req.end(JSON.stringify({ who, elements: new Array(2_500).fill(0) }));
      });
    try {
      // a light request being served all along, and a piece of 10 ms: the next piece is due 1 s after it (share 0.01)
      void gateway.send("/light").catch(() => undefined);
      await lightArrived;
      await gateway.turns.turn("someone").then(() => busyFor(10));
      // meanwhile client A's three bodies and then client B's arrive and wait
      const fromA = [post("Token A", "a1"), post("Token A", "a2"), post("Token A", "a3")];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const fromB = post("Token B", "b1");
      await Promise.all([...fromA, fromB]);
      // one queue, oldest first, would have finished A's three first; round the clients, B's is done first
      // (its two pieces come second and fourth, A's bodies' second pieces after their three first ones)
      expect(parsed).toEqual(["b1", "a1", "a2", "a3"]);
    } finally {
      await gateway.close();
    }
  });
});
