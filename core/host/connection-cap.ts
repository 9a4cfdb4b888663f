import type http from "node:http";
import type net from "node:net";
import { answerAndClose } from "./raw-answer";
import { Status } from "../protocol/status";

/**
 * At most `max` open connections per client address (0: no cap). The HTTP
 * server's own connection listener is wrapped, so a connection over the cap
 * never reaches the HTTP parser: it is answered 503 with an envelope and
 * closed at once. 3000, not 2xxx, because a partner retries on 3xxx and the
 * refusal passes once its other connections close.
 */
export const capConnectionsPerClient = (server: http.Server, max: number): void => {
  if (max === 0) return;
  const listeners = server.listeners("connection") as ((socket: net.Socket) => void)[];
  if (listeners.length !== 1) throw new Error(`expected the HTTP server's own connection listener only, found ${listeners.length}`);
  const [serve] = listeners;
  server.removeListener("connection", serve);
  const open = new Map<string, number>();
  server.on("connection", (socket: net.Socket) => {
    const client = clientAddress(socket);
    if (client === undefined) return void socket.destroy();
    const count = open.get(client) ?? 0;
    if (count >= max) {
      answerAndClose(socket, 503, Status.SERVER_ERROR, `More than ${max} open connections from this address; retry later`, { "Retry-After": "1" });
      return;
    }
    open.set(client, count + 1);
    socket.once("close", () => {
      const left = open.get(client)! - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
    serve.call(server, socket);
  });
};

/** IPv4 clients on a dual-stack listener appear as ::ffff:a.b.c.d; one client, one count. */
const clientAddress = (socket: net.Socket): string | undefined => socket.remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
