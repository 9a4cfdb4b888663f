import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Partner receivers for the push benchmark: `count` loopback servers that
 * answer every request with an OCPI success at next to no cost, so the
 * benchmark measures the side that pushes. Prints "listening on [ports]".
 * Argument: count.
 */
const count = Number(process.argv[2]);
const answer = Buffer.from(JSON.stringify({ status_code: 1000, timestamp: "2026-01-01T00:00:00Z" }));

const listen = (): Promise<number> =>
  new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": answer.length });
        res.end(answer);
      });
    });
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });

Promise.all(Array.from({ length: count }, listen)).then((ports) => process.stdout.write(`listening on ${JSON.stringify(ports)}\n`));
process.once("SIGTERM", () => process.exit(0));
