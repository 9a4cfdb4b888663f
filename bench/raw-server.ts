import http from "node:http";
import { readFileSync } from "node:fs";

/**
 * The baseline: a bare node:http server answering the bytes and headers the
 * gateway answered, captured once. Runs as its own process on the server core.
 * Arguments: port, body file, headers JSON file.
 */
const [port, bodyFile, headersFile] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const headers = JSON.parse(readFileSync(headersFile, "utf8")) as Record<string, string>;
http
  .createServer((_req, res) => {
    res.writeHead(200, { ...headers, "content-length": body.length });
    res.end(body);
  })
  .listen(Number(port), "127.0.0.1", () => process.stdout.write("listening on raw\n"));
process.once("SIGTERM", () => process.exit(0));
