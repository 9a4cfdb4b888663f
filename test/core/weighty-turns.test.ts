import http from "node:http";
import net from "node:net";
import pino from "pino";
import { DEFAULT_INBOUND } from "../../config/types";
import { createHttpServer } from "../../core/host/http-server";
import { readJsonBody } from "../../core/http/json-body";
import { WeightyTurns } from "../../core/http/weighty-turns";

/**
 * Weighty pieces of work (a large body's parse, and the work after it: core/http/json-body.ts,
 * core/http/weighty-turns.ts) run one per turn of the event loop, oldest first; the I/O that arrives
 * meanwhile is served between two of them; and they wait for the light requests being served, at most
 * `weighty_piece_max_wait_ms`. Turns are counted by an immediate that re-queues itself (one a turn, in the
 * check phase); what is checked is the order of events, never a duration: where a test needs the pieces
 * never to give up waiting, the bound is longer than any test.
 */
const NEVER = { weighty_piece_max_wait_ms: 10_000 };

/** resolves after `count` turns of the event loop */
const turnsPass = async (count: number): Promise<void> => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("weighty turns", () => {
  it("runs pieces queued together one a turn, oldest first", async () => {
    const turns = new WeightyTurns(NEVER);
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

  it("serves a request that arrived during a piece before the next piece", async () => {
    const turns = new WeightyTurns(NEVER);
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
const serve = async (maxWaitMs: number, handle: http.RequestListener) => {
  const limits = { ...DEFAULT_INBOUND, weighty_piece_max_wait_ms: maxWaitMs };
  const turns = new WeightyTurns(limits);
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
  return { limits, turns, send, close };
};

describe("weighty pieces wait for the light requests being served", () => {
  it("a piece waits while a light request is served, and runs once it is answered", async () => {
    const events: string[] = [];
    let answer: (() => void) | undefined;
    let lightIn: () => void = () => undefined;
    const lightArrived = new Promise<void>((resolve) => (lightIn = resolve));
    const gateway = await serve(NEVER.weighty_piece_max_wait_ms, (_req, res) => {
      answer = () => {
        events.push("light answered");
        res.end("light");
      };
      lightIn();
    });
    try {
      const light = gateway.send("/light");
      await lightArrived;
      const piece = gateway.turns.turn().then(() => void events.push("piece"));
      await turnsPass(20);
      expect(events).toEqual([]);
      answer!();
      await Promise.all([light, piece]);
      expect(events).toEqual(["light answered", "piece"]);
    } finally {
      await gateway.close();
    }
  });

  it("a piece waits at most weighty_piece_max_wait_ms for them", async () => {
    let lightIn: () => void = () => undefined;
    const lightArrived = new Promise<void>((resolve) => (lightIn = resolve));
    let answered = false;
    const gateway = await serve(50, (_req, res) => {
      lightIn();
      // answered only after the test: the light request is being served all along
      res.on("close", () => (answered = true));
    });
    try {
      void gateway.send("/light").catch(() => undefined);
      await lightArrived;
      await gateway.turns.turn();
      expect(answered).toBe(false);
    } finally {
      await gateway.close();
    }
  });

  it("a request with a weighty body is not light: by its Content-Length, or once read (by its members)", async () => {
    const gateway = await serve(NEVER.weighty_piece_max_wait_ms, (req, res) => {
      // each body is read as every route reads one: its own pieces must not wait for itself
      readJsonBody(req, res, gateway.limits).then(
        ({ body }) => res.end(String((body as unknown[]).length)),
        () => res.end("refused"),
      );
    });
    try {
      // 80 KB: weighty by its Content-Length, never counted as light
      expect(await gateway.send("/bytes", JSON.stringify(["x".repeat(40_000), "y".repeat(40_000)]))).toBe("2");
      // 3,000 elements in 6 KB: counted as light until its body was read and found weighty
      expect(await gateway.send("/members", JSON.stringify(Array.from({ length: 3_000 }, () => 0)))).toBe("3000");
    } finally {
      await gateway.close();
    }
  });
});
