import http from "node:http";
import { listenOnLoopback } from "./loopback-server";

/** One request a recording server received. */
export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string;
  headers: http.IncomingHttpHeaders;
  /** the body as sent ("" when there was none, or when the client broke it off) */
  text: string;
  /** the body parsed as JSON; undefined when there was none or it is not JSON */
  body: any;
}

/**
 * A partner's server on loopback that records every request it receives in
 * `recorded` and answers each with a bare 1000 envelope: a sender's response
 * URLs, or a receiver behind a hub that takes whatever it is sent. `port` 0
 * takes any free port.
 */
export const recordingServer = async (port: number, recorded: RecordedRequest[]): Promise<http.Server> => {
  const server = http.createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      recorded.push({ method: req.method ?? "", path: req.url ?? "", authorization: String(req.headers.authorization), headers: req.headers, text, body });
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ status_code: 1000, timestamp: new Date().toISOString() }));
    });
  });
  await listenOnLoopback(server, port);
  return server;
};
