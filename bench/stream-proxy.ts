import http from "node:http";

/**
 * The hub's baseline (issue #26): a minimal streaming reverse proxy on
 * node:http — each request re-sent with `http.request` over kept-alive
 * connections, its headers as they came, the body piped to the receiver and
 * the answer's status, headers and body piped back. No checks, no rewriting,
 * no logging: what forwarding costs with nothing else. Runs as its own
 * process on the server core. Arguments: port, the receiver's origin
 * (`http://host:port`).
 */
const [port, origin] = process.argv.slice(2);
const receiver = new URL(origin);
const agent = new http.Agent({ keepAlive: true });
http
  .createServer((req, res) => {
    const outgoing = http.request({ host: receiver.hostname, port: receiver.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outgoing.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    });
    req.pipe(outgoing);
  })
  .listen(Number(port), "127.0.0.1", () => process.stdout.write("listening on stream proxy\n"));
process.once("SIGTERM", () => process.exit(0));
