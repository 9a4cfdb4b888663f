import type http from "node:http";

/** Listens on 127.0.0.1:`port`; 0 takes any free port. */
export const listenOnLoopback = (server: http.Server, port = 0): Promise<void> =>
  new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve()));

/** Stops `server`, also ending its open connections: a gateway's keep-alive sockets would otherwise hold close() open until they time out. */
export const closeServer = (server: http.Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
