/** Raw HTTP over a socket, where an HTTP client would hide what the server does, for the inbound hardening tests (test/core/http-hardening.test.ts). */
import "reflect-metadata";
import net from "node:net";

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

export interface Exchange {
  /** everything the server sent */
  text: string;
  /** whether the server closed the connection within the wait */
  closed: boolean;
  ms: number;
}

/**
 * Connects (optionally from another loopback address), lets `drive` write,
 * and collects what the server sends until it closes the connection or
 * `waitMs` passes. A reset after the answer counts as closed.
 */
export const exchange = (port: number, drive: (socket: net.Socket) => void, waitMs: number, localAddress = "127.0.0.1"): Promise<Exchange> =>
  new Promise((resolve) => {
    const began = Date.now();
    let text = "";
    const socket = net.connect({ port, host: "127.0.0.1", localAddress });
    const timer = setTimeout(() => finish(false), waitMs);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, ms: Date.now() - began });
    };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => finish(true));
    socket.on("connect", () => drive(socket));
  });

/** Writes `chunk` every `everyMs` until the socket closes. */
export const trickle = (socket: net.Socket, chunk: string, everyMs: number): void => {
  const timer = setInterval(() => (socket.writable ? socket.write(chunk) : clearInterval(timer)), everyMs);
  socket.once("close", () => clearInterval(timer));
};

export const parseResponse = (text: string): RawResponse => {
  const end = text.indexOf("\r\n\r\n");
  expect(end).toBeGreaterThan(0);
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine.split(" ")[1]), headers, body: JSON.parse(text.slice(end + 4)) };
};

/** The answer is a complete HTTP/1.1 response carrying an OCPI envelope, and the connection was then closed. */
export const expectEnvelopeAndClose = (result: Exchange, httpStatus: number, statusCode: number): RawResponse => {
  expect(result.closed).toBe(true);
  expect(result.text.startsWith(`HTTP/1.1 ${httpStatus} `)).toBe(true);
  const response = parseResponse(result.text);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(response.headers.connection).toBe("close");
  expect(response.headers["x-request-id"]).toMatch(UUID);
  expect(response.headers["x-correlation-id"]).toBe(response.headers["x-request-id"]);
  expect(response.body).toEqual(expect.objectContaining({ status_code: statusCode, status_message: expect.any(String), timestamp: expect.stringMatching(TIMESTAMP) }));
  return response;
};

export const head = (lines: string[]): string => `${lines.join("\r\n")}\r\n\r\n`;
