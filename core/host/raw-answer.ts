import { STATUS_CODES } from "node:http";
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { envelope } from "../http/envelope";

const answered = new WeakSet<Duplex>();

/**
 * Answers on a bare socket, where no Koa context exists (an unparsable
 * request, a timeout, a refused connection): a complete HTTP/1.1 response with
 * an OCPI envelope, then the socket is closed once the answer is written. The
 * request's ids cannot be read here, so fresh ones are minted (README "Answers
 * and errors"). A socket is answered once; later calls only close it.
 */
export const answerAndClose = (socket: Duplex, httpStatus: number, statusCode: number, message: string, headers: Record<string, string> = {}): void => {
  if (answered.has(socket) || !socket.writable) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  const body = JSON.stringify(envelope(undefined, statusCode, message));
  const head = {
    "Content-Type": "application/json",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
    ...mintedRequestIds(),
    ...headers,
  };
  const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${httpStatus} ${STATUS_CODES[httpStatus] ?? ""}\r\n${lines.join("")}\r\n${body}`, () => socket.destroy());
};

/** X-Request-ID and X-Correlation-ID for an answer given before the request could be read. */
export const mintedRequestIds = (): Record<string, string> => {
  const requestId = randomUUID();
  return { "X-Request-ID": requestId, "X-Correlation-ID": requestId };
};
