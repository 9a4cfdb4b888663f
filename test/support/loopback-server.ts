import http from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on 127.0.0.1:`port`; 0 takes any free port. */
export const listenOnLoopback = (server: http.Server, port = 0): Promise<void> =>
  new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve()));

/** Stops `server`, also ending its open connections: a gateway's keep-alive sockets would otherwise hold close() open until they time out. */
export const closeServer = (server: http.Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/**
 * A partner written for a test (a node:http server on loopback): each request is handed, with its
 * body read as text, to `answer`. Subclasses say how the partner behaves.
 */
export abstract class LoopbackPartner {
  protected readonly server = http.createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => this.answer(req, text, res));
  });

  protected abstract answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void;

  get base(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  start(): Promise<void> {
    return listenOnLoopback(this.server);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}
