import http from "node:http";
import type { Duplex } from "node:stream";
import type { Logger } from "pino";
import type { InboundServerConfig } from "../../config/types";
import { answerAndClose, mintedRequestIds } from "./raw-answer";
import { capConnectionsPerClient } from "./connection-cap";
import { envelope } from "../http/envelope";
import { Status } from "../protocol/status";
import type { WeightyTurns } from "../http/weighty-turns";

/**
 * The HTTP server partners call, with the limits of `server.inbound`. Node's
 * parser answers some requests itself (an oversized head 431, a malformed one
 * 400, a timeout 408) with an empty body; here each of those is an OCPI
 * envelope instead, and the connection is closed. Every request is told to
 * the gateway's weighty turns as it arrives (core/http/weighty-turns.ts):
 * while light requests are about, the pieces of weighty bodies take only a
 * share of the event loop.
 */
export const createHttpServer = (handler: http.RequestListener, limits: InboundServerConfig, log: Logger, turns: WeightyTurns): http.Server => {
  const server = http.createServer(
    {
      headersTimeout: limits.headers_timeout_ms,
      requestTimeout: limits.request_timeout_ms,
      keepAliveTimeout: limits.keep_alive_timeout_ms,
      maxHeaderSize: limits.max_header_bytes,
      // Node checks both timeouts on this interval (default 30 s, which would let a 1 s timeout run 30 s).
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(limits.headers_timeout_ms / 4))),
      // Node answers a missing Host with an empty 400; nothing here reads Host (URLs come from public_url).
      requireHostHeader: false,
    },
    (req, res) => {
      turns.arrived(req, res);
      return handler(req, res);
    },
  );
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A response the app has begun cannot be replaced by another one: only close.
    const inFlight = (socket as { _httpMessage?: http.ServerResponse })._httpMessage;
    if (error.code === "ECONNRESET" || inFlight?.headersSent) return void socket.destroy();
    const [httpStatus, message] = describeClientError(error.code, limits);
    log.debug({ code: error.code, httpStatus }, "inbound request refused by the HTTP parser");
    answerAndClose(socket, httpStatus, Status.CLIENT_ERROR, message);
  });
  // Without a listener Node drops a CONNECT without a word; this gateway is no proxy.
  server.on("connect", (_request: http.IncomingMessage, socket: Duplex) =>
    answerAndClose(socket, 405, Status.CLIENT_ERROR, "CONNECT is not supported"),
  );
  // Node answers an Expect other than 100-continue with an empty 417.
  server.on("checkExpectation", (_request: http.IncomingMessage, response: http.ServerResponse) => {
    const body = JSON.stringify(envelope(undefined, Status.CLIENT_ERROR, "Only Expect: 100-continue is supported"));
    const headers = { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Connection: "close", ...mintedRequestIds() };
    response.writeHead(417, headers).end(body);
  });
  capConnectionsPerClient(server, limits.max_connections_per_client);
  return server;
};

const describeClientError = (code: string | undefined, limits: InboundServerConfig): [number, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, `Request line and headers larger than ${limits.max_header_bytes} bytes`];
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "Chunk extensions of the request body too large"];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [
        408,
        `Request not received in time (headers within ${limits.headers_timeout_ms} ms, the whole request within ${limits.request_timeout_ms} ms)`,
      ];
    default:
      return [400, "Malformed HTTP request"];
  }
};
