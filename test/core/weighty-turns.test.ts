import net from "node:net";
import { weightyTurn } from "../../core/http/json-body";

/**
 * Weighty pieces of work (a large body's parse, and the work after it: core/http/json-body.ts) run one
 * per turn of the event loop, oldest first, and the I/O that arrives meanwhile is served between two of
 * them. Turns are counted by an immediate that re-queues itself (one a turn, in the check phase); what is
 * checked is the order of events, never a duration.
 */
describe("weighty turns", () => {
  it("runs pieces queued together one a turn, oldest first", async () => {
    let turn = 0;
    let counting = true;
    const tick = (): void => {
      turn++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const ran: [piece: number, turn: number][] = [];
    await Promise.all([0, 1, 2, 3, 4].map((piece) => weightyTurn().then(() => void ran.push([piece, turn]))));
    counting = false;
    expect(ran.map(([piece]) => piece)).toEqual([0, 1, 2, 3, 4]);
    const turns = ran.map(([, at]) => at);
    for (let i = 1; i < turns.length; i++) expect(turns[i]).toBeGreaterThan(turns[i - 1]);
  });

  it("serves a request that arrived during a piece before the next piece", async () => {
    const events: string[] = [];
    const server = net.createServer((socket) => socket.on("data", () => void events.push("request")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const client = net.connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => client.once("connect", resolve));
    const first = weightyTurn().then(() => {
      events.push("first");
      client.write("request");
      // the piece holds the loop until the request has surely arrived at the server's socket
      const until = Date.now() + 50;
      while (Date.now() < until);
    });
    const second = weightyTurn().then(() => void events.push("second"));
    await Promise.all([first, second]);
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // the server read the request in the poll phase between the two pieces
    expect(events).toEqual(["first", "request", "second"]);
  });
});
